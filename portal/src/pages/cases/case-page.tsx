// One case (GET /cases/{id}): its facts, the call it is about, its status, severity and assignee,
// its title and description (edited in place), and the thread of comments.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "wouter";
import { api, must } from "../../api/client.ts";
import { ErrorBox, Loading, PageTitle, Status } from "../../components/ui.tsx";
import { when } from "../../lib/format.ts";
import { CaseChanges } from "./case-changes.tsx";
import { CaseComments } from "./case-comments.tsx";
import { CaseEditForm } from "./case-edit-form.tsx";
import { isMissing, Severity } from "./case-values.tsx";
import { LinkedCall } from "./linked-call.tsx";

export default function CasePage() {
  const { id = "" } = useParams<{ id: string }>();
  const [editing, setEditing] = useState(false);
  const found = useQuery({
    queryKey: ["case", id],
    queryFn: () => must(api.GET("/cases/{case_id}", { params: { path: { case_id: id } } })),
    retry: (failures, error) => !isMissing(error) && failures < 2,
  });

  if (found.isPending) return <Loading what="Loading the case" />;
  if (found.isError) {
    if (!isMissing(found.error)) return <ErrorBox error={found.error} />;
    return (
      <>
        <PageTitle>Case not found</PageTitle>
        <p>
          This account has no case at this address. <Link href="/cases">All cases</Link>
        </p>
      </>
    );
  }
  const record = found.data;
  return (
    <>
      <p className="crumbs">
        <Link href="/cases">Cases</Link>
      </p>
      <PageTitle
        actions={
          editing ? null : (
            <button type="button" onClick={() => setEditing(true)}>
              Edit title and description
            </button>
          )
        }
      >
        Case #{record.case_no}: {record.title}
      </PageTitle>
      <div className="cols">
        <section className="card" aria-labelledby="case-facts">
          <h2 id="case-facts">The case</h2>
          {editing ? (
            <CaseEditForm record={record} onDone={() => setEditing(false)} />
          ) : (
            <div className="case-description">{record.description || <span className="muted">No description.</span>}</div>
          )}
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <Status value={record.status} />
            </dd>
            <dt>Severity</dt>
            <dd>
              <Severity value={record.severity} />
            </dd>
            <dt>Assigned to</dt>
            <dd>{record.assigned_to_label ?? (record.assigned_to ? "A former user" : "Unassigned")}</dd>
            <dt>Opened by</dt>
            <dd>{record.created_by ?? "—"}</dd>
            <dt>Opened</dt>
            <dd>{when(record.created_at)}</dd>
            <dt>Updated</dt>
            <dd>{when(record.updated_at)}</dd>
          </dl>
        </section>
        <LinkedCall callId={record.call_id} call={record.call} headingId="case-call" />
      </div>
      <section className="card" aria-labelledby="case-changes">
        <h2 id="case-changes">Status, severity and assignee</h2>
        <CaseChanges record={record} />
      </section>
      <CaseComments record={record} />
    </>
  );
}
