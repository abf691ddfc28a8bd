// TODO(issue 29): alerts-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>alerts-page</PageTitle>;
}
