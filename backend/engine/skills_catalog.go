package engine

import (
	"context"
	"fmt"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/skills"
	"tinyelf/backend/tokens"
)

// Skills in the catalog: each skill is a descriptor of kind skill whose
// index line is its capped description and whose detail is its body and
// file list (read_skill is how the model loads it).

// SkillEntries describes the snapshot's skills of one source as catalog
// entries of kind skill: the effective ones (skill__<name>), the shadowed
// and the invalid ones (with the problem that hides them, and an identity
// of their own so they are listed beside the one that won). noPrompt
// hides the project skills nobody trusted yet (nobody can be asked), with
// how to trust them as the reason.
func SkillEntries(lib *skills.Library, snap *skills.Snapshot, src skills.Source, noPrompt bool) []capabilities.Entry {
	var out []capabilities.Entry
	for _, sk := range snap.Skills {
		if sk.Source == src {
			out = append(out, skillEntry(lib, sk, noPrompt))
		}
	}
	for _, sh := range snap.Shadowed {
		if sh.Skill.Source != src {
			continue
		}
		e := describeSkill(sh.Skill)
		e.ID = sh.Skill.ID() + "@" + sh.Skill.Location()
		e.Problem = fmt.Sprintf("shadowed by the %s skill of the same name at %s", sh.By.Source, sh.By.Location())
		out = append(out, e)
	}
	for _, inv := range snap.Invalid {
		if inv.Source != src {
			continue
		}
		out = append(out, capabilities.Entry{Descriptor: capabilities.Descriptor{
			ID: "skill__" + inv.Name + "@" + inv.Dir, Kind: capabilities.KindSkill, Name: inv.Name, Title: inv.Name,
			Summary: "(does not load)", Source: "skill:" + string(inv.Source), Risk: capabilities.RiskLow, ReadOnly: true,
			Problem: "it does not load: " + inv.Problem.String(),
		}})
	}
	return out
}

// skillEntry describes an effective skill; a skill the model may not load
// carries the reason as its Problem.
func skillEntry(lib *skills.Library, sk *skills.Skill, noPrompt bool) capabilities.Entry {
	e := describeSkill(sk)
	switch {
	case sk.DisableModelInvocation:
		e.Problem = fmt.Sprintf("only you run it, as /%s (disable-model-invocation)", sk.Name)
	case lib.Trust(sk) == skills.TrustDenied:
		e.Problem = "you did not trust this project skill in this workspace (Settings → Skills changes that)"
	case lib.Trust(sk) == skills.TrustUntrusted && noPrompt:
		e.Problem = lib.HowToTrust(sk.Name)
	}
	return e
}

// describeSkill is a skill's catalog descriptor: its index line is the
// capped description, its detail the body and the file list.
func describeSkill(sk *skills.Skill) capabilities.Entry {
	idx := skills.IndexEntryFor(sk, skills.DefaultIndexDescriptionRunes)
	desc := sk.Description
	if sk.WhenToUse != "" {
		desc += "\n" + sk.WhenToUse
	}
	risk := capabilities.RiskLow
	if sk.Source == skills.SourceProject {
		risk = capabilities.RiskMedium // it comes from a repository, not from the user
	}
	var keywords []string
	for _, k := range []string{sk.ArgumentHint, sk.Compatibility} {
		if k != "" {
			keywords = append(keywords, k)
		}
	}
	d := capabilities.Descriptor{
		ID: sk.ID(), Kind: capabilities.KindSkill, Name: sk.Name, Title: sk.Name,
		Summary: idx.Description, Description: desc, Source: "skill:" + string(sk.Source),
		Risk: risk, ReadOnly: true, IndexTokens: idx.Tokens, FullTokens: tokens.EstimateSize(sk.Size),
		Keywords: keywords,
	}
	return capabilities.Entry{Descriptor: d, LoadDetail: func(context.Context) (capabilities.Detail, error) {
		body, err := sk.Body()
		if err != nil {
			return capabilities.Detail{}, err
		}
		files, _, _ := sk.Files(0)
		return capabilities.Detail{Body: body, Files: files}, nil
	}}
}
