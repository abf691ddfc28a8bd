// TODO(issue 29): automation-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>automation-page</PageTitle>;
}
