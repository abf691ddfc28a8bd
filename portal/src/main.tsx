// The portal's entry: the query cache, the router under /app, and the session restored from the
// refresh cookie before the first page shows.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Router } from "wouter";
import { ApiError } from "./api/errors.ts";
import { App } from "./app.tsx";
import { session } from "./session/session.ts";
import "./styles.css";

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A refusal (404, 403, 422) is the answer; a network failure, a 5xx or a 401 (the session is
      // being renewed) is worth another try.
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status < 500 && error.status !== 401),
      refetchOnWindowFocus: false,
    },
  },
});

// Another user in this browser must never see the last one's cached pages.
session.subscribe(() => {
  if (session.current().status === "signed_out") queries.clear();
});
void session.restore();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <Router base="/app">
        <App />
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
