// The API explorer (Swagger UI from our own assets).
export { registerDocs as register } from "./routes.ts";
