-- The plan ladder and the AI tiers (docs/decisions.md, "Plans and AI tiers").
-- Money in micro-dollars: 1 USD = 1000000.
INSERT INTO plans (code, name, monthly_fee_micros, ports, included_minutes, per_minute_rate_micros, min_billable_seconds, active, description, sort_order) VALUES
  ('payg', 'Pay as you go', 0, 2, NULL, 12000, 60, 1, 'No monthly fee: every minute at the pay-as-you-go rate, 2 concurrent calls.', 0),
  ('starter', 'Starter', 49000000, 10, 5000, 10000, 60, 1, '10 concurrent calls and 5,000 minutes a month for a small carrier or contact centre.', 1),
  ('business', 'Business', 199000000, 30, 25000, 8000, 60, 1, '30 concurrent calls and 25,000 minutes a month.', 2),
  ('carrier', 'Carrier', 799000000, 120, 120000, 6000, 30, 1, '120 concurrent calls, 120,000 minutes a month and 30-second minimum billing.', 3);
--> statement-breakpoint
INSERT INTO ai_tiers (mode, analysis_fee_micros, provider, model, active, sort_order) VALUES
  ('lite', 5000, 'workers-ai', '@cf/meta/llama-3.2-3b-instruct', 1, 0),
  ('power', 20000, 'workers-ai', '@cf/meta/llama-3.3-70b-instruct-fp8-fast', 1, 1),
  ('expert', 60000, 'openai-compatible', 'gpt-class-large', 1, 2);
