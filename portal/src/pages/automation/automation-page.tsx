// Automation (/app/automation): the rules that turn a verdict into a controlled number, and the
// numbers under control now (or ever, with released ones) with what caused them and Release.
import { PageTitle } from "../../components/ui.tsx";
import { ControlledNumbers } from "./controls.tsx";
import { AutomationRules } from "./rules.tsx";

export default function AutomationPage() {
  return (
    <div className="automation-area">
      <PageTitle>Automation</PageTitle>
      <AutomationRules />
      <ControlledNumbers />
    </div>
  );
}
