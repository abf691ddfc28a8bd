// TODO(issue 29): settings-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>settings-page</PageTitle>;
}
