// TODO(issue 28): ticket-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>ticket-page</PageTitle>;
}
