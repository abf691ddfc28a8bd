// TODO(issue 28): case-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>case-page</PageTitle>;
}
