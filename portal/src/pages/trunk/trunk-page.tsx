// TODO(issue 29): trunk-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>trunk-page</PageTitle>;
}
