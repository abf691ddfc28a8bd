// The current password and a new one (twice), as POST /auth/change-password takes them.
import { useState, type FormEvent } from "react";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Field } from "../../components/ui.tsx";
import { useAuthConfig } from "../../session/hooks.ts";

export function ChangePasswordForm({ onChanged }: { onChanged: () => Promise<void> | void }) {
  const config = useAuthConfig();
  const [form, setForm] = useState({ current_password: "", new_password: "", repeat: "" });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const min = config.data?.password_min_length ?? 12;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (form.new_password !== form.repeat) {
      setError(new ApiError(422, "The two new passwords differ", { repeat: "Type the same new password twice" }));
      return;
    }
    setBusy(true);
    try {
      await must(api.POST("/auth/change-password", { body: { current_password: form.current_password, new_password: form.new_password } }));
      await onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <Field
        label="Current password"
        name="current_password"
        type="password"
        autoComplete="current-password"
        required
        value={form.current_password}
        error={error}
        onChange={(e) => setForm({ ...form, current_password: e.target.value })}
      />
      <Field
        label="New password"
        name="new_password"
        type="password"
        autoComplete="new-password"
        required
        minLength={min}
        hint={`At least ${min} characters.`}
        value={form.new_password}
        error={error}
        onChange={(e) => setForm({ ...form, new_password: e.target.value })}
      />
      <Field
        label="New password again"
        name="repeat"
        type="password"
        autoComplete="new-password"
        required
        value={form.repeat}
        error={error}
        onChange={(e) => setForm({ ...form, repeat: e.target.value })}
      />
      <button type="submit" className="primary" disabled={busy}>
        Change password
      </button>
      <ErrorBox error={error} />
    </form>
  );
}
