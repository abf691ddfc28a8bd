// AI agents authorised on the account through OAuth (an MCP host such as a desktop assistant): who
// authorised each, what it may do, when it last acted. Revoking one stops its tokens at once. The
// owner sees and revokes every agent of the account, a member their own.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { usePermissions } from "../../session/hooks.ts";
import { orNever } from "./shared.tsx";

type Agent = Schemas["AuthorizedAgent"];
const AGENTS = ["agents"];

const SCOPES: Record<Agent["scopes"][number], string> = {
  "calls:read": "read calls and verdicts",
  "config:write": "change the account's setup",
  test_calls: "ask for test calls",
};

export function Agents() {
  const { owner } = usePermissions();
  const list = useQuery({ queryKey: AGENTS, queryFn: () => must(api.GET("/customer/agents")) });
  return (
    <section className="card" aria-labelledby="team-agents">
      <h2 id="team-agents">Authorised AI agents</h2>
      <p className="muted">
        An agent acts with the role of the person who authorised it, within what they allowed. Revoking it stops it at once; it would have
        to ask again.{owner ? "" : " You see the agents you authorised yourself."}
      </p>
      {list.isPending ? (
        <Loading what="Loading the agents" />
      ) : list.isError ? (
        <ErrorBox error={list.error} />
      ) : list.data.items.length === 0 ? (
        <Empty>No AI agent is authorised.</Empty>
      ) : (
        <AgentTable agents={list.data.items} />
      )}
    </section>
  );
}

function AgentTable({ agents }: { agents: Agent[] }) {
  const queries = useQueryClient();
  const base = useId();
  const revoke = useMutation({
    mutationFn: (id: string) => must(api.DELETE("/customer/agents/{grant_id}", { params: { path: { grant_id: id } } })),
    onSuccess: () => {
      featureUsed("agents.revoke");
      void queries.invalidateQueries({ queryKey: AGENTS });
    },
  });
  return (
    <>
      <div className="table-wrap">
        <table className="team-table">
          <caption className="visually-hidden">Authorised AI agents</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Authorised by</th>
              <th scope="col">May</th>
              <th scope="col">Authorised</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {agents.map((agent) => {
              const rowId = `${base}-${agent.grant_id}`;
              return (
                <tr key={agent.grant_id} data-grant-id={agent.grant_id}>
                  <th scope="row" id={rowId}>
                    {agent.client_name || <span className="team-id">{agent.client_id}</span>}
                    {agent.redirect_host ? <div className="muted">at {agent.redirect_host}</div> : null}
                  </th>
                  <td className="team-email">{agent.user_email}</td>
                  <td>
                    <ul className="team-scopes">
                      {agent.scopes.map((scope) => (
                        <li key={scope}>
                          <span className="badge" title={scope}>
                            {SCOPES[scope] ?? scope}
                          </span>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td className="team-when">{when(agent.created_at)}</td>
                  <td className="team-when">{orNever(agent.last_used_at, when)}</td>
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        className="danger"
                        onClick={() => revoke.mutate(agent.grant_id)}
                        disabled={revoke.isPending}
                        aria-describedby={rowId}
                      >
                        Revoke
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorBox error={revoke.error} />
    </>
  );
}
