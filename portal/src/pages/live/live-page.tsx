// TODO(issue 28): live-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>live-page</PageTitle>;
}
