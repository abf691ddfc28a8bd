CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_customer_idx` ON `api_keys` (`customer_id`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`actor_user_id` text,
	`actor_label` text,
	`action` text NOT NULL,
	`detail` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_customer_created_idx` ON `audit_log` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`company` text,
	`phone` text,
	`tax_id` text,
	`country` text,
	`province` text,
	`role` text DEFAULT 'customer' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`plan_code` text NOT NULL,
	`ports_override` integer,
	`plan_started_at` text,
	`plan_renews_at` text,
	`webhook_url` text,
	`webhook_secret_enc` text,
	`twofa_enabled` integer DEFAULT false NOT NULL,
	`dialer_enabled` integer DEFAULT false NOT NULL,
	`test_calls_enabled` integer DEFAULT true NOT NULL,
	`ai_mode` text DEFAULT 'power' NOT NULL,
	`data_region` text DEFAULT 'ca' NOT NULL,
	`media_region` text DEFAULT 'ca' NOT NULL,
	`pilot_started_at` text,
	`pilot_ends_at` text,
	`pilot_minutes_limit` integer,
	`terms_version` text,
	`terms_accepted_at` text,
	`profile` text,
	`profile_completed_at` text,
	`billing_address` text,
	`low_balance_alert_enabled` integer DEFAULT true NOT NULL,
	`low_balance_threshold_micros` integer DEFAULT 5000000 NOT NULL,
	`low_balance_alert_armed` integer DEFAULT true NOT NULL,
	`attribution` text,
	`sessions_revoked_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_email_uq` ON `customers` (`email`);--> statement-breakpoint
CREATE TABLE `passkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`credential_id` text NOT NULL,
	`public_key` text NOT NULL,
	`sign_count` integer DEFAULT 0 NOT NULL,
	`transports` text,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `passkeys_credential_uq` ON `passkeys` (`credential_id`);--> statement-breakpoint
CREATE INDEX `passkeys_user_idx` ON `passkeys` (`user_id`);--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`family_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`impersonated_by` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`rotated_at` text,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `refresh_tokens_hash_uq` ON `refresh_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_family_idx` ON `refresh_tokens` (`family_id`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_user_idx` ON `refresh_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_customer_idx` ON `refresh_tokens` (`customer_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text,
	`role` text NOT NULL,
	`password_hash` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`must_change_password` integer DEFAULT false NOT NULL,
	`is_platform_admin` integer DEFAULT false NOT NULL,
	`last_login_at` text,
	`last_login_ip` text,
	`sessions_revoked_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_uq` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_customer_idx` ON `users` (`customer_id`);--> statement-breakpoint
CREATE TABLE `ai_tiers` (
	`mode` text PRIMARY KEY NOT NULL,
	`analysis_fee_micros` integer DEFAULT 0 NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `plans` (
	`code` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`monthly_fee_micros` integer DEFAULT 0 NOT NULL,
	`ports` integer NOT NULL,
	`included_minutes` integer,
	`per_minute_rate_micros` integer DEFAULT 0 NOT NULL,
	`min_billable_seconds` integer NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`description` text,
	`sort_order` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `destinations` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`host` text NOT NULL,
	`port` integer DEFAULT 5060 NOT NULL,
	`transport` text DEFAULT 'udp' NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`label` text,
	`kind` text DEFAULT 'sip' NOT NULL,
	`provider` text,
	`agent_id` text,
	`config` text,
	`tech_prefix` text,
	`auth_username` text,
	`auth_password_enc` text,
	`auth_realm` text,
	`webhook_secret_enc` text,
	`provider_api_key_enc` text,
	`webhook_token_hash` text,
	`webhook_token_enc` text,
	`webhook_last_event_at` text,
	`webhook_last_status` text,
	`webhook_last_error` text,
	`processing` text DEFAULT 'full' NOT NULL,
	`sample_rate` integer DEFAULT 1 NOT NULL,
	`sample_mode` text DEFAULT 'analyse' NOT NULL,
	`transfer_mode` text DEFAULT 'platform' NOT NULL,
	`monitor_enabled` integer DEFAULT false NOT NULL,
	`monitor_supported` integer,
	`monitor_status` text DEFAULT 'unknown' NOT NULL,
	`monitor_last_check_at` text,
	`monitor_last_change_at` text,
	`monitor_rtt_ms` integer,
	`monitor_last_code` integer,
	`monitor_last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `destinations_customer_created_idx` ON `destinations` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `destinations_customer_default_idx` ON `destinations` (`customer_id`,`is_default`);--> statement-breakpoint
CREATE UNIQUE INDEX `destinations_webhook_token_uq` ON `destinations` (`webhook_token_hash`);--> statement-breakpoint
CREATE INDEX `destinations_monitor_idx` ON `destinations` (`monitor_enabled`,`monitor_last_check_at`);--> statement-breakpoint
CREATE TABLE `routing_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`prefix` text NOT NULL,
	`destination_id` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`priority` integer DEFAULT 100 NOT NULL,
	`label` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `routing_rules_customer_prefix_destination_uq` ON `routing_rules` (`customer_id`,`prefix`,`destination_id`);--> statement-breakpoint
CREATE INDEX `routing_rules_customer_destination_idx` ON `routing_rules` (`customer_id`,`destination_id`);--> statement-breakpoint
CREATE TABLE `whitelist_ips` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`cidr` text NOT NULL,
	`ip_version` integer NOT NULL,
	`range_start` text NOT NULL,
	`range_end` text NOT NULL,
	`label` text,
	`dial_prefix` text,
	`destination_id` text,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `whitelist_ips_customer_created_idx` ON `whitelist_ips` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `whitelist_ips_customer_cidr_prefix_uq` ON `whitelist_ips` (`customer_id`,`cidr`,`dial_prefix`);--> statement-breakpoint
CREATE UNIQUE INDEX `whitelist_ips_customer_cidr_noprefix_uq` ON `whitelist_ips` (`customer_id`,`cidr`) WHERE "whitelist_ips"."dial_prefix" is null;--> statement-breakpoint
CREATE INDEX `whitelist_ips_range_idx` ON `whitelist_ips` (`range_start`,`range_end`);--> statement-breakpoint
CREATE INDEX `whitelist_ips_customer_destination_idx` ON `whitelist_ips` (`customer_id`,`destination_id`);--> statement-breakpoint
CREATE TABLE `analyses` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`call_id` text NOT NULL,
	`ai_mode` text,
	`provider` text,
	`model` text,
	`location` text,
	`prompt_version` text NOT NULL,
	`title` text,
	`probability` integer NOT NULL,
	`category` text NOT NULL,
	`entity` text,
	`caller_identity` text,
	`red_flags` text,
	`language` text,
	`tcpa_comment` text,
	`summary` text,
	`recommendation` text NOT NULL,
	`keywords` text,
	`route_alert` text,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`cost_micros` integer DEFAULT 0 NOT NULL,
	`latency_ms` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `analyses_call_created_idx` ON `analyses` (`call_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `analysis_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`call_id` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `analysis_jobs_customer_call_idx` ON `analysis_jobs` (`customer_id`,`call_id`);--> statement-breakpoint
CREATE INDEX `analysis_jobs_status_updated_idx` ON `analysis_jobs` (`status`,`updated_at`);--> statement-breakpoint
CREATE TABLE `call_entities` (
	`customer_id` text NOT NULL,
	`call_id` text NOT NULL,
	`entity` text NOT NULL,
	`started_at` text NOT NULL,
	PRIMARY KEY(`call_id`, `entity`)
);
--> statement-breakpoint
CREATE INDEX `call_entities_customer_entity_started_idx` ON `call_entities` (`customer_id`,`entity`,`started_at`);--> statement-breakpoint
CREATE INDEX `call_entities_customer_started_entity_idx` ON `call_entities` (`customer_id`,`started_at`,`entity`);--> statement-breakpoint
CREATE TABLE `call_keywords` (
	`customer_id` text NOT NULL,
	`call_id` text NOT NULL,
	`keyword` text NOT NULL,
	`started_at` text NOT NULL,
	PRIMARY KEY(`call_id`, `keyword`)
);
--> statement-breakpoint
CREATE INDEX `call_keywords_customer_keyword_started_idx` ON `call_keywords` (`customer_id`,`keyword`,`started_at`);--> statement-breakpoint
CREATE INDEX `call_keywords_customer_started_keyword_idx` ON `call_keywords` (`customer_id`,`started_at`,`keyword`);--> statement-breakpoint
CREATE TABLE `call_sip_messages` (
	`customer_id` text NOT NULL,
	`call_id` text NOT NULL,
	`seq` integer NOT NULL,
	`time_stamp` text NOT NULL,
	`direction` text NOT NULL,
	`method` text NOT NULL,
	`status` text,
	`from_ip` text NOT NULL,
	`to_ip` text NOT NULL,
	`from_tag` text,
	`to_tag` text,
	`first_line` text NOT NULL,
	`headers` text,
	`raw` text,
	PRIMARY KEY(`call_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `calls` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`sip_call_id` text NOT NULL,
	`origin` text DEFAULT 'sip' NOT NULL,
	`direction` text DEFAULT 'inbound' NOT NULL,
	`status` text NOT NULL,
	`src_ip` text NOT NULL,
	`ani` text,
	`dialed` text,
	`dest_country` text,
	`dest_host` text DEFAULT '' NOT NULL,
	`dest_port` integer DEFAULT 0 NOT NULL,
	`dest_transport` text DEFAULT 'udp' NOT NULL,
	`dest_kind` text DEFAULT 'sip' NOT NULL,
	`dest_tech_prefix` text,
	`dest_provider` text,
	`media_ip` text,
	`external_id` text,
	`external_name` text,
	`sub_customer` text,
	`dial_prefix` text,
	`routed_destination_id` text,
	`routed_destination_label` text,
	`route_prefix` text,
	`agent_seconds` integer,
	`agent_rate_applied_micros` integer,
	`ai_mode` text,
	`node_id` text,
	`media_node` text,
	`max_call_seconds` integer,
	`mos` real,
	`jitter_ms` real,
	`packet_loss_pct` real,
	`qos` text,
	`codec` text,
	`pdd_ms` integer,
	`answer_delay_ms` integer,
	`early_media` integer,
	`hangup_by` text,
	`q850_cause` integer,
	`q850_text` text,
	`sip_code` integer,
	`end_reason` text,
	`started_at` text NOT NULL,
	`answered_at` text,
	`ended_at` text,
	`duration_sec` integer,
	`billsec` integer,
	`charged_micros` integer DEFAULT 0 NOT NULL,
	`rate_applied_micros` integer,
	`recording_wav_path` text,
	`recording_available` integer DEFAULT false NOT NULL,
	`recording_pcap_paths` text,
	`captured_headers` text,
	`dtmf` text,
	`transcript_status` text NOT NULL,
	`analysis_status` text NOT NULL,
	`processing` text DEFAULT 'full' NOT NULL,
	`sampled` integer DEFAULT true NOT NULL,
	`processing_error` text,
	`transcript_summary` text,
	`transfer_target` text,
	`transfer_status` text,
	`transfer_code` integer,
	`transfer_at` text,
	`transfer_mode` text,
	`transfer_call_id` text,
	`analysis_id` text,
	`probability` integer,
	`category` text,
	`recommendation` text,
	`has_route_alert` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `calls_customer_started_idx` ON `calls` (`customer_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_status_started_idx` ON `calls` (`customer_id`,`status`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_analysis_status_started_idx` ON `calls` (`customer_id`,`analysis_status`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_origin_started_idx` ON `calls` (`customer_id`,`origin`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_sampled_started_idx` ON `calls` (`customer_id`,`sampled`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_destination_started_idx` ON `calls` (`customer_id`,`routed_destination_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_sub_customer_started_idx` ON `calls` (`customer_id`,`sub_customer`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_category_started_idx` ON `calls` (`customer_id`,`category`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_recommendation_started_idx` ON `calls` (`customer_id`,`recommendation`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_probability_started_idx` ON `calls` (`customer_id`,`probability`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_route_alert_started_idx` ON `calls` (`customer_id`,`has_route_alert`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_customer_external_id_idx` ON `calls` (`customer_id`,`external_id`);--> statement-breakpoint
CREATE INDEX `calls_customer_sip_call_id_idx` ON `calls` (`customer_id`,`sip_call_id`);--> statement-breakpoint
CREATE INDEX `calls_customer_ani_started_idx` ON `calls` (`customer_id`,`ani`,`started_at`);--> statement-breakpoint
CREATE INDEX `calls_node_status_idx` ON `calls` (`node_id`,`status`);--> statement-breakpoint
CREATE TABLE `transcripts` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`call_id` text NOT NULL,
	`provider` text,
	`model` text,
	`location` text,
	`language` text,
	`audio_seconds` real,
	`cost_micros` integer DEFAULT 0 NOT NULL,
	`text` text DEFAULT '' NOT NULL,
	`segments` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transcripts_call_created_idx` ON `transcripts` (`call_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `call_shares` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`call_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`token_enc` text NOT NULL,
	`password_hash` text NOT NULL,
	`label` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	`last_viewed_at` text,
	`view_count` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `call_shares_token_hash_uq` ON `call_shares` (`token_hash`);--> statement-breakpoint
CREATE INDEX `call_shares_customer_call_created_idx` ON `call_shares` (`customer_id`,`call_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `leads` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`company` text,
	`platform` text,
	`volume` text,
	`message` text,
	`page` text,
	`attribution` text,
	`website` text,
	`source_ip_hash` text,
	`notified_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `leads_created_idx` ON `leads` (`created_at`);--> statement-breakpoint
CREATE INDEX `leads_source_ip_created_idx` ON `leads` (`source_ip_hash`,`created_at`);--> statement-breakpoint
CREATE TABLE `case_comments` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`case_id` text NOT NULL,
	`author_kind` text NOT NULL,
	`author_user_id` text,
	`author_label` text,
	`body` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `case_comments_customer_case_created_idx` ON `case_comments` (`customer_id`,`case_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `cases` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`case_no` integer NOT NULL,
	`call_id` text,
	`title` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'open' NOT NULL,
	`severity` text DEFAULT 'medium' NOT NULL,
	`created_by` text,
	`assigned_to` text,
	`comment_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cases_customer_case_no_uq` ON `cases` (`customer_id`,`case_no`);--> statement-breakpoint
CREATE UNIQUE INDEX `cases_customer_call_uq` ON `cases` (`customer_id`,`call_id`);--> statement-breakpoint
CREATE INDEX `cases_customer_created_idx` ON `cases` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `cases_customer_status_created_idx` ON `cases` (`customer_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `cases_customer_severity_created_idx` ON `cases` (`customer_id`,`severity`,`created_at`);--> statement-breakpoint
CREATE INDEX `cases_customer_assigned_created_idx` ON `cases` (`customer_id`,`assigned_to`,`created_at`);--> statement-breakpoint
CREATE TABLE `support_tickets` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`ticket_no` integer NOT NULL,
	`kind` text DEFAULT 'question' NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`call_id` text,
	`status` text DEFAULT 'open' NOT NULL,
	`created_by` text,
	`closed_at` text,
	`message_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `support_tickets_customer_ticket_no_uq` ON `support_tickets` (`customer_id`,`ticket_no`);--> statement-breakpoint
CREATE INDEX `support_tickets_customer_created_idx` ON `support_tickets` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `support_tickets_customer_status_created_idx` ON `support_tickets` (`customer_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `support_tickets_customer_kind_created_idx` ON `support_tickets` (`customer_id`,`kind`,`created_at`);--> statement-breakpoint
CREATE INDEX `support_tickets_customer_call_idx` ON `support_tickets` (`customer_id`,`call_id`);--> statement-breakpoint
CREATE INDEX `support_tickets_status_updated_idx` ON `support_tickets` (`status`,`updated_at`);--> statement-breakpoint
CREATE TABLE `ticket_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`ticket_id` text NOT NULL,
	`author_kind` text NOT NULL,
	`author_user_id` text,
	`author_label` text,
	`body` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ticket_messages_customer_ticket_created_idx` ON `ticket_messages` (`customer_id`,`ticket_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ani_controls` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`ani` text NOT NULL,
	`action` text NOT NULL,
	`divert_destination_id` text,
	`reason` text,
	`rule_id` text,
	`call_id` text,
	`expires_at` text,
	`released_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ani_controls_customer_ani_idx` ON `ani_controls` (`customer_id`,`ani`);--> statement-breakpoint
CREATE INDEX `ani_controls_customer_released_created_idx` ON `ani_controls` (`customer_id`,`released_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `automation_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`min_probability` integer DEFAULT 90 NOT NULL,
	`recommendations` text,
	`action` text DEFAULT 'block' NOT NULL,
	`divert_destination_id` text,
	`duration_hours` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `automation_rules_customer_created_idx` ON `automation_rules` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `alert_channels` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`kind` text NOT NULL,
	`label` text,
	`config` text,
	`secret_enc` text,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_channels_customer_created_idx` ON `alert_channels` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `alert_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`call_id` text,
	`channel_id` text,
	`status` text NOT NULL,
	`error` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_deliveries_customer_rule_created_idx` ON `alert_deliveries` (`customer_id`,`rule_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `alert_deliveries_customer_call_idx` ON `alert_deliveries` (`customer_id`,`call_id`);--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`min_probability` integer DEFAULT 70 NOT NULL,
	`categories` text,
	`recommendations` text,
	`recipients` text,
	`throttle_minutes` integer DEFAULT 0 NOT NULL,
	`include_transcript` integer DEFAULT false NOT NULL,
	`include_sip_log` integer DEFAULT false NOT NULL,
	`include_pcap` integer DEFAULT false NOT NULL,
	`include_recording` integer DEFAULT false NOT NULL,
	`trigger` text DEFAULT 'fraud' NOT NULL,
	`max_mos` real,
	`channel_ids` text,
	`email_enabled` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_rules_customer_created_idx` ON `alert_rules` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`event_id` text NOT NULL,
	`kind` text NOT NULL,
	`call_id` text,
	`url` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`status_code` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`latency_ms` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`delivered_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_uq` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_customer_created_idx` ON `webhook_deliveries` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `test_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`status` text NOT NULL,
	`number` text NOT NULL,
	`caller_id` text,
	`destination_id` text,
	`seconds` integer DEFAULT 30 NOT NULL,
	`speech` text DEFAULT 'route_test' NOT NULL,
	`sip_call_id` text NOT NULL,
	`call_id` text,
	`agent_destination_id` text,
	`instruction` text,
	`agent_sip_call_id` text,
	`agent_call_id` text,
	`node_id` text,
	`answered` integer,
	`sip_code` integer,
	`sip_reason` text,
	`talk_seconds` real,
	`ended_by` text,
	`error` text,
	`purpose` text DEFAULT 'test' NOT NULL,
	`created_by` text,
	`confirmed_at` text,
	`confirmed_by` text,
	`confirm_url` text,
	`confirm_expires_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `test_calls_customer_created_idx` ON `test_calls` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `test_calls_customer_sip_call_id_idx` ON `test_calls` (`customer_id`,`sip_call_id`);--> statement-breakpoint
CREATE TABLE `verified_numbers` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`number` text NOT NULL,
	`label` text,
	`verified_at` text,
	`verification_method` text,
	`verification_code_hash` text,
	`verification_expires_at` text,
	`verification_attempts` integer DEFAULT 0 NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `verified_numbers_customer_number_uq` ON `verified_numbers` (`customer_id`,`number`);--> statement-breakpoint
CREATE TABLE `dialer_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`customer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dialer_sessions_token_hash_uq` ON `dialer_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `dialer_sessions_customer_created_idx` ON `dialer_sessions` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `dialer_sessions_expires_idx` ON `dialer_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `oauth_clients` (
	`client_id` text PRIMARY KEY NOT NULL,
	`client_secret_hash` text,
	`client_name` text,
	`redirect_uris` text NOT NULL,
	`token_endpoint_auth_method` text DEFAULT 'none' NOT NULL,
	`grant_types` text NOT NULL,
	`scope` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `oauth_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`code_challenge` text NOT NULL,
	`code_challenge_method` text DEFAULT 'S256' NOT NULL,
	`scope` text,
	`resource` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text
);
--> statement-breakpoint
CREATE INDEX `oauth_codes_expires_idx` ON `oauth_codes` (`expires_at`);--> statement-breakpoint
CREATE TABLE `oauth_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`refresh_token_hash` text NOT NULL,
	`grant_id` text NOT NULL,
	`client_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`scope` text,
	`resource` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	`rotated_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_tokens_refresh_hash_uq` ON `oauth_tokens` (`refresh_token_hash`);--> statement-breakpoint
CREATE INDEX `oauth_tokens_grant_idx` ON `oauth_tokens` (`grant_id`);--> statement-breakpoint
CREATE INDEX `oauth_tokens_customer_user_idx` ON `oauth_tokens` (`customer_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`period_start` text NOT NULL,
	`period_end` text NOT NULL,
	`lines` text NOT NULL,
	`subtotal_micros` integer DEFAULT 0 NOT NULL,
	`tax_micros` integer DEFAULT 0 NOT NULL,
	`total_micros` integer DEFAULT 0 NOT NULL,
	`currency` text DEFAULT 'usd' NOT NULL,
	`billing_address` text,
	`tax_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_customer_period_uq` ON `invoices` (`customer_id`,`period_start`);--> statement-breakpoint
CREATE TABLE `payment_events` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`provider_event_id` text NOT NULL,
	`type` text NOT NULL,
	`customer_id` text,
	`payment_id` text,
	`payload` text,
	`processed_at` text,
	`error` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_events_provider_event_uq` ON `payment_events` (`provider`,`provider_event_id`);--> statement-breakpoint
CREATE INDEX `payment_events_customer_created_idx` ON `payment_events` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`provider` text NOT NULL,
	`provider_session_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount_micros` integer DEFAULT 0 NOT NULL,
	`currency` text DEFAULT 'usd' NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`plan_code` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`completed_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_provider_session_uq` ON `payments` (`provider_session_id`);--> statement-breakpoint
CREATE INDEX `payments_customer_created_idx` ON `payments` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `outbox_emails` (
	`id` text PRIMARY KEY NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`text` text,
	`html` text,
	`created_at` text NOT NULL,
	`sent_at` text,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `outbox_emails_created_idx` ON `outbox_emails` (`created_at`);--> statement-breakpoint
CREATE INDEX `outbox_emails_to_idx` ON `outbox_emails` (`to_address`);--> statement-breakpoint
CREATE TABLE `portal_events` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`user_id` text,
	`kind` text NOT NULL,
	`props` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `portal_events_customer_created_idx` ON `portal_events` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `portal_events_kind_created_idx` ON `portal_events` (`kind`,`created_at`);--> statement-breakpoint
CREATE TABLE `digest_nonce_counters` (
	`nonce` text PRIMARY KEY NOT NULL,
	`last_nc` integer DEFAULT 0 NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `digest_nonce_counters_expires_idx` ON `digest_nonce_counters` (`expires_at`);--> statement-breakpoint
CREATE TABLE `esim_countries` (
	`name` text PRIMARY KEY NOT NULL,
	`iso2` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `esim_notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`iccid` text NOT NULL,
	`eid` text,
	`seq_number` integer,
	`operation` text NOT NULL,
	`payload` text,
	`received_at` text NOT NULL,
	`processed_at` text,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `esim_notifications_iccid_received_idx` ON `esim_notifications` (`iccid`,`received_at`);--> statement-breakpoint
CREATE TABLE `esim_orders` (
	`i_esim_order` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_uuid` text NOT NULL,
	`i_account` integer NOT NULL,
	`order_type` text NOT NULL,
	`iccid` text,
	`i_esim_package` integer,
	`package_type_id` integer,
	`package_name` text NOT NULL,
	`amount_charged_micros` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`create_ts` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `esim_orders_order_uuid_uq` ON `esim_orders` (`order_uuid`);--> statement-breakpoint
CREATE INDEX `esim_orders_account_create_ts_idx` ON `esim_orders` (`i_account`,`create_ts`);--> statement-breakpoint
CREATE INDEX `esim_orders_iccid_idx` ON `esim_orders` (`iccid`);--> statement-breakpoint
CREATE TABLE `esim_packages` (
	`i_esim_package` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`i_vendor` integer NOT NULL,
	`name` text NOT NULL,
	`countries` text NOT NULL,
	`data_gb` real NOT NULL,
	`validity_days` integer NOT NULL,
	`price_micros` integer DEFAULT 0 NOT NULL,
	`fee_micros` integer DEFAULT 0 NOT NULL,
	`kind` text DEFAULT 'universal' NOT NULL,
	`active` integer DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE INDEX `esim_packages_active_vendor_idx` ON `esim_packages` (`active`,`i_vendor`);--> statement-breakpoint
CREATE INDEX `esim_packages_active_data_idx` ON `esim_packages` (`active`,`data_gb`);--> statement-breakpoint
CREATE TABLE `esim_topup_packages` (
	`package_type_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`i_vendor` integer,
	`name` text NOT NULL,
	`data_gb` real NOT NULL,
	`validity_days` integer NOT NULL,
	`activation_policy` text NOT NULL,
	`supported_countries` text NOT NULL,
	`price_micros` integer DEFAULT 0 NOT NULL,
	`fee_micros` integer DEFAULT 0 NOT NULL,
	`active` integer DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE `esim_vendors` (
	`i_vendor` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`login` text NOT NULL,
	`name` text NOT NULL,
	`sm_dp_address` text,
	`active` integer DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `esim_vendors_login_uq` ON `esim_vendors` (`login`);--> statement-breakpoint
CREATE TABLE `esims` (
	`iccid` text PRIMARY KEY NOT NULL,
	`i_account` integer NOT NULL,
	`i_esim_package` integer NOT NULL,
	`sm_dp_address` text NOT NULL,
	`matching_id` text NOT NULL,
	`activation_code` text NOT NULL,
	`lpa` text NOT NULL,
	`status` text DEFAULT 'RELEASED' NOT NULL,
	`status_message` text,
	`data_allowance_bytes` integer DEFAULT 0 NOT NULL,
	`data_used_bytes` integer DEFAULT 0 NOT NULL,
	`expires_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `esims_account_created_idx` ON `esims` (`i_account`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `esims_matching_id_uq` ON `esims` (`matching_id`);--> statement-breakpoint
CREATE TABLE `exchange_accounts` (
	`i_account` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`role` text DEFAULT 'buyer' NOT NULL,
	`buyer_key_enc` text,
	`seller_key_enc` text,
	`status` text DEFAULT 'active' NOT NULL,
	`hourly_quota` integer,
	`per_second_cap` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `exchange_accounts_username_uq` ON `exchange_accounts` (`username`);--> statement-breakpoint
CREATE TABLE `iot_devices` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`i_account` integer NOT NULL,
	`device` text NOT NULL,
	`iccid` text,
	`label` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `iot_devices_account_device_uq` ON `iot_devices` (`i_account`,`device`);--> statement-breakpoint
CREATE TABLE `iot_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`i_account` integer NOT NULL,
	`device` text NOT NULL,
	`ts` text NOT NULL,
	`topic` text NOT NULL,
	`payload` text,
	`direction` text DEFAULT 'inbound' NOT NULL,
	`charged_micros` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `iot_events_account_ts_idx` ON `iot_events` (`i_account`,`ts`);