// Skills: folders holding SKILL.md that package know-how for a kind of work. Discovery at session start, the
// bounded read behind `read_skill`, and the system-prompt sections that list them.
export { discoverSkills, type DiscoverOptions, type Skill, type SkillCatalog, type SkillProject, type SkippedSkill } from "./discover";
export { projectSkillsSection, userSkillsSection } from "./prompt";
export { readSkill, SkillReadError } from "./read";
export { acceptDraft, checkDraft, currentFiles, type Draft, type DraftAction, type DraftInput, draftsDir, listDrafts, readDraft, rejectDraft, SkillDraftError, writeDraft, writtenByScv } from "./drafts";
