# Parse-time checks that need every rule (so this file is included last): model names that
# would be folders where the workflow writes its own files, and files where it needs folders.
# Both stop the run here, before any job, naming the config key or the path and the fix.

from eibench.workflow_paths import files_in_the_way, model_name_clashes, rule_paths

_RULE_PATHS = rule_paths(workflow.rules)
_path_problems = model_name_clashes(list(MODELS), _RULE_PATHS) + files_in_the_way(_RULE_PATHS, Path.cwd())
if _path_problems:
    raise WorkflowError("the workflow cannot write its files:\n  - " + "\n  - ".join(_path_problems))
