// TODO(issue 28): dashboard-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>dashboard-page</PageTitle>;
}
