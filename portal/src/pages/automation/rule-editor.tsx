// The form of the rule the URL names (?rule=new or ?rule=<id>), as the automation and alert rule
// lists open it above themselves; a rule that is gone says so.
import type { ComponentType } from "react";
import { useUrlState } from "../../lib/url-state.ts";

/** The rule the URL opens (`"new"`, an id, or none), and the ways to open and close it. */
export function useRuleInUrl() {
  const url = useUrlState();
  return {
    editing: url.get("rule"),
    open: (id: string) => url.set({ rule: id }, { keepOffset: true }),
    close: () => url.set({ rule: null }, { keepOffset: true }),
  };
}

type RuleForm<R> = ComponentType<{ rule: R | null; onDone: () => void }>;

export function RuleEditor<R extends { id: string; name: string }>({
  editing,
  rules,
  Form,
  onDone,
  newTitle,
  gone,
}: {
  editing: string;
  /** The rules as read, none while they load. */
  rules: R[] | undefined;
  Form: RuleForm<R>;
  onDone: () => void;
  newTitle: string;
  gone: string;
}) {
  const edited = editing && editing !== "new" ? rules?.find((r) => r.id === editing) : undefined;
  return (
    <>
      {editing === "new" ? (
        <div className="rule-editor">
          <h3>{newTitle}</h3>
          <Form rule={null} onDone={onDone} />
        </div>
      ) : null}
      {edited ? (
        <div className="rule-editor">
          <h3>Change “{edited.name}”</h3>
          <Form key={edited.id} rule={edited} onDone={onDone} />
        </div>
      ) : null}
      {editing && editing !== "new" && rules && !edited ? <p className="error">{gone}</p> : null}
    </>
  );
}
