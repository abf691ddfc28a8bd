// TODO(issue 29): team-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>team-page</PageTitle>;
}
