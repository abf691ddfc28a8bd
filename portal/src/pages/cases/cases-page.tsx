// TODO(issue 28): cases-page.
import { PageTitle } from "../../components/ui.tsx";

export default function Page() {
  return <PageTitle>cases-page</PageTitle>;
}
