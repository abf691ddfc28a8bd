// TODO(issue 28): live-call-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>live-call-page</PageTitle>;
}
