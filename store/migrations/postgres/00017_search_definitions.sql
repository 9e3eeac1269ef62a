-- +goose Up
-- definition marks the sections made from an API object's signature
-- (Sphinx's <dt class="sig">); labels are a section's other anchors,
-- separated by spaces (Sphinx's reference labels before a heading). Both
-- rank a section first when the query names it. Sections indexed before
-- keep the defaults until their version is indexed again: they are found
-- and ranked as before.
ALTER TABLE search_sections ADD COLUMN definition BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE search_sections ADD COLUMN labels TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE search_sections DROP COLUMN labels;
ALTER TABLE search_sections DROP COLUMN definition;
