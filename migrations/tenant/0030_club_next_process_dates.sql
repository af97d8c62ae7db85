-- A member never processed is next processed by the club's first release, not archived, on or
-- after the sign-up (or the end of a hold) that offers the member's delivery method. Memberships
-- stored before this rule show the sign-up plus one cadence: those with such a release take its
-- date. The others keep their date, which the rule leaves as it was.
UPDATE `club_memberships`
SET `next_process_date` = `planned`.`process_date`,
  `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM (
  SELECT m.`id`, min(r.`process_date`) AS `process_date`
  FROM `club_memberships` m
  JOIN `club_releases` r ON r.`club_id` = m.`club_id`
  WHERE m.`status` <> 'Cancelled'
    AND m.`last_processed_date` IS NULL
    AND r.`status` <> 'Archived'
    AND r.`process_date` >= max(m.`signup_date`, CASE WHEN m.`status` = 'On Hold' THEN coalesce(m.`hold_until`, '') ELSE '' END)
    AND EXISTS (SELECT 1 FROM json_each(r.`delivery_methods`) WHERE json_each.`value` = m.`order_delivery_method`)
  GROUP BY m.`id`
) AS `planned`
WHERE `club_memberships`.`id` = `planned`.`id`
  AND `club_memberships`.`next_process_date` IS NOT `planned`.`process_date`;
