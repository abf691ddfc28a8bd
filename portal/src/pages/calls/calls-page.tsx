// TODO(issue 28): calls-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>calls-page</PageTitle>;
}
