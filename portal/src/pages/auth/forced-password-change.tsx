// A member invited with a temporary password (must_change_password) chooses their own before any
// other page opens. The change revokes every other session; this browser keeps its cookie and
// takes a new access token from it.
import { useQueryClient } from "@tanstack/react-query";
import { ChangePasswordForm } from "./change-password-form.tsx";
import { session } from "../../session/session.ts";

export function ForcedPasswordChange() {
  const queries = useQueryClient();
  return (
    <main id="main" className="auth">
      <h1>Choose your password</h1>
      <p>You signed in with a temporary password. Choose your own to continue.</p>
      <ChangePasswordForm
        onChanged={async () => {
          await session.afterPasswordChange();
          await queries.invalidateQueries({ queryKey: ["me"] });
        }}
      />
      <p>
        <button type="button" onClick={() => void session.signOut()}>
          Sign out
        </button>
      </p>
    </main>
  );
}
