-- A turn's reply state is set while its answer streams and, once the turn is done, while its answer
-- is still owed to the chat (src/store/repos/owed-answers.ts). Only those few rows are in this
-- index, so the recovery sweep finds the owed answers without reading every finished turn.
CREATE INDEX "Turn_replyState_idx" ON "Turn"("status") WHERE "replyState" IS NOT NULL;
