"""From a validated config to finished files: sections, config schema, locale, render jobs, outputs."""
