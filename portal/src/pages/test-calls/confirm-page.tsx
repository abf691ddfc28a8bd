// TODO(issue 28): confirm-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>confirm-page</PageTitle>;
}
