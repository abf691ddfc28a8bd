// TODO(issue 28): test-calls-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>test-calls-page</PageTitle>;
}
