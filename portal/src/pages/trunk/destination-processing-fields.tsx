// What happens to a destination's calls: recorded and analysed or not, which of them are sampled,
// who bridges a transfer, and the free-form config.
import { Field, SelectField, TextField } from "../../components/ui.tsx";
import { PROCESSING, SAMPLE_MODES, TRANSFER_MODES } from "./destination-choices.ts";
import { boxOf, type DraftProps } from "./destination-draft.ts";

/** The <option>s of a list of [value, words] choices. */
function Choices({ choices }: { choices: [string, string][] }) {
  return (
    <>
      {choices.map(([value, text]) => (
        <option key={value} value={value}>
          {text}
        </option>
      ))}
    </>
  );
}

export function ProcessingFields(props: DraftProps) {
  return (
    <fieldset>
      <legend>Recording and analysis</legend>
      <div className="trunk-fields">
        <SelectField label="Processing" {...boxOf(props, "processing")}>
          <Choices choices={PROCESSING} />
        </SelectField>
        <Field
          label="Sample rate (one call in)"
          {...boxOf(props, "sample_rate")}
          type="number"
          min={1}
          required
          hint="1 analyses every call."
        />
        <SelectField label="Sample mode" {...boxOf(props, "sample_mode")}>
          <Choices choices={SAMPLE_MODES} />
        </SelectField>
        <SelectField label="Transfers" {...boxOf(props, "transfer_mode")}>
          <Choices choices={TRANSFER_MODES} />
        </SelectField>
      </div>
      <TextField
        label="Config (JSON object)"
        {...boxOf(props, "config")}
        placeholder='{"language": "en"}'
        spellCheck={false}
        hint="Optional free-form settings, at most 16,384 characters."
      />
    </fieldset>
  );
}
