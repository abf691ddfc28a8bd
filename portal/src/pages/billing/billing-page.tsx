// TODO(issue 29): billing-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>billing-page</PageTitle>;
}
