ALTER TABLE `support_tickets` ADD `created_by_user_id` text;--> statement-breakpoint
ALTER TABLE `outbox_emails` ADD `attachments` text;