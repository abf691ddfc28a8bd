// The people of the account: the owner invites members (a temporary password goes by e-mail, to be
// changed at the first sign-in), sends a new one, deactivates and reactivates them, and removes a
// member's passkeys so they enrol a new one. Every user counts towards the account's limit,
// deactivated ones too. Members see the list only.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Field, fieldError, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { useMe, usePermissions } from "../../session/hooks.ts";
import { Confirm, GuardedButton, orNever, welcomeEmailText } from "./shared.tsx";

type User = Schemas["User"];
const USERS = ["users"];

export function Users() {
  const { owner, impersonating } = usePermissions();
  const list = useQuery({ queryKey: USERS, queryFn: () => must(api.GET("/customer/users")) });
  const [notice, setNotice] = useState<string | null>(null);
  const full = list.data ? list.data.items.length >= list.data.max_users : false;
  return (
    <section className="card" aria-labelledby="team-users">
      <h2 id="team-users">Users</h2>
      {list.data ? (
        <p data-testid="user-count">
          <strong>
            {list.data.items.length} of {list.data.max_users}
          </strong>{" "}
          users. Deactivated members count towards the limit too.
        </p>
      ) : null}
      {owner ? (
        <InviteForm full={full} max={list.data?.max_users ?? 0} refused={impersonating} onNotice={setNotice} />
      ) : (
        <p className="muted">The account&apos;s owner invites members and deactivates them.</p>
      )}
      {notice ? (
        <p className="team-notice" role="status">
          {notice}
        </p>
      ) : null}
      {list.isPending ? (
        <Loading what="Loading the users" />
      ) : list.isError ? (
        <ErrorBox error={list.error} />
      ) : list.data.items.length === 0 ? (
        <Empty>No users.</Empty>
      ) : (
        <UserTable users={list.data.items} owner={owner} refused={impersonating} onNotice={setNotice} />
      )}
    </section>
  );
}

function InviteForm({ full, max, refused, onNotice }: { full: boolean; max: number; refused: boolean; onNotice: (text: string) => void }) {
  const queries = useQueryClient();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const invite = useMutation({
    mutationFn: () => must(api.POST("/customer/users", { body: { email: email.trim(), name: name.trim() || null } })),
    onSuccess: (result) => {
      featureUsed("team.invite");
      onNotice(`${result.user.email} is invited. ${welcomeEmailText(result.user.email, result.welcome_email)}`);
      setEmail("");
      setName("");
      void queries.invalidateQueries({ queryKey: USERS });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  const named = fieldError(invite.error, "email") || fieldError(invite.error, "name");
  return (
    <form className="team-inline-form" onSubmit={submit} aria-label="Invite a member" noValidate>
      <Field
        label="E-mail of the new member"
        name="email"
        type="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        autoComplete="off"
        placeholder="analyst@carrier.example"
        required
        error={invite.error}
      />
      <Field
        label="Their name"
        name="name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        autoComplete="off"
        placeholder="Grace Hopper"
        error={invite.error}
      />
      <div className="team-form-buttons">
        <GuardedButton type="submit" className="primary" refused={refused} disabled={invite.isPending || full || !email.trim()}>
          {invite.isPending ? "Inviting…" : "Invite"}
        </GuardedButton>
      </div>
      {full ? <p className="muted team-form-note">The account has its {max} users: no one more can be invited.</p> : null}
      {named ? null : <ErrorBox error={invite.error} />}
      <p className="muted team-form-note">
        The member receives a temporary password by e-mail, good for one sign-in within 72 hours, where they choose their own.
      </p>
    </form>
  );
}

function state(user: User): string {
  if (!user.is_active) return "Deactivated";
  if (user.must_change_password) return "Invited: has not chosen a password yet";
  return "Active";
}

function UserTable({
  users,
  owner,
  refused,
  onNotice,
}: {
  users: User[];
  owner: boolean;
  refused: boolean;
  onNotice: (text: string) => void;
}) {
  const queries = useQueryClient();
  const me = useMe();
  const base = useId();
  const [resetting, setResetting] = useState<string | null>(null);
  const refresh = () => void queries.invalidateQueries({ queryKey: USERS });
  const resend = useMutation({
    mutationFn: (user: User) => must(api.POST("/customer/users/{user_id}/resend-invite", { params: { path: { user_id: user.id } } })),
    onSuccess: (result) => {
      featureUsed("team.resend_invite");
      onNotice(
        `${result.user.email} has a new temporary password; the old one and their sessions stopped working. ${welcomeEmailText(result.user.email, result.welcome_email)}`,
      );
      refresh();
    },
  });
  const activate = useMutation({
    mutationFn: ({ user, active }: { user: User; active: boolean }) =>
      must(api.PATCH("/customer/users/{user_id}", { params: { path: { user_id: user.id } }, body: { is_active: active } })),
    onSuccess: (user) => {
      featureUsed(user.is_active ? "team.reactivate" : "team.deactivate");
      onNotice(
        user.is_active
          ? `${user.email} can sign in again.`
          : `${user.email} is deactivated: their sessions, API keys and agents stopped working.`,
      );
      refresh();
    },
  });
  const resetPasskey = useMutation({
    mutationFn: (user: User) => must(api.DELETE("/auth/passkeys/members/{user_id}", { params: { path: { user_id: user.id } } })),
    onSuccess: (_, user) => {
      featureUsed("passkeys.reset_member");
      setResetting(null);
      onNotice(`${user.email}'s passkeys are removed: they enrol a new one at their next sign-in.`);
    },
  });
  const busy = resend.isPending || activate.isPending || resetPasskey.isPending;
  const twofa = Boolean(me.data?.twofa_enabled);
  return (
    <>
      <div className="table-wrap">
        <table className="team-table">
          <caption className="visually-hidden">Users of the account</caption>
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Role</th>
              <th scope="col">State</th>
              <th scope="col">Last sign-in</th>
              <th scope="col">Added</th>
              {owner ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {users.map((user) => {
              const rowId = `${base}-${user.id}`;
              return (
                <tr key={user.id} data-user-id={user.id}>
                  <th scope="row" id={rowId}>
                    {user.name ? <div>{user.name}</div> : null}
                    <div className={user.name ? "muted" : undefined}>{user.email}</div>
                  </th>
                  <td>{user.role}</td>
                  <td>
                    <span className={user.is_active ? (user.must_change_password ? "badge" : "badge team-ok") : "badge team-off"}>
                      {state(user)}
                    </span>
                  </td>
                  <td className="team-when" data-testid="last-login">
                    {orNever(user.last_login_at, when)}
                    {user.last_login_ip ? <div className="muted">from {user.last_login_ip}</div> : null}
                  </td>
                  <td className="team-when">{when(user.created_at)}</td>
                  {owner ? (
                    <td>
                      {user.role === "owner" ? null : (
                        <>
                          <div className="actions">
                            <GuardedButton refused={refused} onClick={() => resend.mutate(user)} disabled={busy} aria-describedby={rowId}>
                              {user.must_change_password ? "Resend invitation" : "Send a new temporary password"}
                            </GuardedButton>
                            <GuardedButton
                              refused={refused}
                              className={user.is_active ? "danger" : undefined}
                              onClick={() => activate.mutate({ user, active: !user.is_active })}
                              disabled={busy}
                              aria-describedby={rowId}
                            >
                              {user.is_active ? "Deactivate" : "Reactivate"}
                            </GuardedButton>
                            {twofa && resetting !== user.id ? (
                              <GuardedButton
                                refused={refused}
                                onClick={() => setResetting(user.id)}
                                disabled={busy}
                                aria-describedby={rowId}
                              >
                                Reset passkey
                              </GuardedButton>
                            ) : null}
                          </div>
                          {resetting === user.id ? (
                            <Confirm
                              action="Remove their passkeys"
                              busy={resetPasskey.isPending}
                              onConfirm={() => resetPasskey.mutate(user)}
                              onCancel={() => setResetting(null)}
                            >
                              {user.email}&apos;s passkeys stop working; at their next sign-in they enrol a new one after the password.
                            </Confirm>
                          ) : null}
                        </>
                      )}
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorBox error={resend.error ?? activate.error ?? resetPasskey.error} />
    </>
  );
}
