CREATE TABLE "export_file_counts" (
	"export_name" text NOT NULL,
	"load_status" text NOT NULL,
	"files" bigint NOT NULL,
	CONSTRAINT "export_file_counts_pkey" PRIMARY KEY("export_name","load_status")
);
--> statement-breakpoint
ALTER TABLE "exported_transactions" ALTER COLUMN "block_timestamp" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "exported_transactions" ALTER COLUMN "tx_type" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "export_files" ADD COLUMN "load_status" text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE "export_files" ADD COLUMN "load_error" text;--> statement-breakpoint
ALTER TABLE "export_files" ADD COLUMN "broken_copies" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "exported_transactions" ADD COLUMN "extra" jsonb;--> statement-breakpoint
-- Files loaded before load statuses existed.
UPDATE "export_files" SET "load_status" = 'loaded' WHERE "loaded_at" IS NOT NULL;
