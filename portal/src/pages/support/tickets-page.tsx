// TODO(issue 28): tickets-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>tickets-page</PageTitle>;
}
