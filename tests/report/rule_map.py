"""A rule-to-script map for unit tests of the numbers modules: every rule's script is
workflow/scripts/<rule>.py (the workflow's real map, eibench.workflow_paths.rule_scripts, is
checked against the jobs' own records in tests/workflow/test_workflow.py)."""


class EveryRule(dict):
    def __missing__(self, rule: str) -> str:
        return f"workflow/scripts/{rule}.py"


RULE_SCRIPTS = EveryRule()
