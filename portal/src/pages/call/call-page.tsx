// TODO(issue 28): call-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>call-page</PageTitle>;
}
