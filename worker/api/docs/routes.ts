// /api/docs: Swagger UI over /api/openapi.json. Its script and style are served by us from
// /api/docs/assets (copied from the swagger-ui-dist package at install), so it works offline.
import type { Api } from "../context.ts";

export const DOCS_ASSETS = "/api/docs/assets";

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Call Screening API</title>
  <link rel="stylesheet" href="${DOCS_ASSETS}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_ASSETS}/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
  </script>
</body>
</html>`;

export function registerDocs(api: Api) {
  api.get("/docs", (c) => c.html(page));
}
