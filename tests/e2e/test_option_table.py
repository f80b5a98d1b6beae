"""The option tables walked against a running daemon: every option LSF 10.1
documents for a command either works (EFFECTS names the test that shows its
effect) or is refused naming it, exit 255, nothing changed in the store.

The tables: lsfemu/options.py. How argv is read: docs/semantics.md,
"Options: one grammar per command".
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lsfemu import options
from tests.hardening.test_bad_input import _drop, _new_cluster, snapshot, socket_call

pytestmark = pytest.mark.slow(12)  # seconds, quiet machine: scheduled early (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]

#: what follows the option so that, were it read, the command would act on something
_TAIL = {"bsub": ["sleep", "1"], "bswitch": ["normal", "1"]}


@pytest.fixture(scope="module")
def cluster():
    c = _new_cluster()
    yield c
    _drop(c)


def _argv(cmd: str, opt: options.Opt) -> list[str]:
    value = [] if opt.value is None else ["1"]
    return [opt.flag] + value + _TAIL.get(cmd, ["1"] if options.grammar(cmd).args_dest else [])


@pytest.mark.parametrize("cmd", sorted(options.GRAMMARS))
def test_every_unbuilt_option_is_refused_by_name(cluster, cmd):
    g = options.grammar(cmd)
    before = snapshot(cluster)
    for opt in g.refused():
        for argv in (_argv(cmd, opt), [opt.flag]):  # with its value, and alone as the last word
            out, err, rc = socket_call(cluster, cmd, argv, "user1", started=True)
            said = f"{cmd}: option {opt.flag} is not supported by lsfemu yet\n"
            assert (out, rc) == ("", 255) and err == said + options.usage(g), (argv, err)
    assert snapshot(cluster) == before


def test_badmin_subcommands_refuse_their_unbuilt_options_by_name(cluster):
    before = snapshot(cluster)
    usage = socket_call(cluster, "badmin", ["-h"], "lsfadmin", started=True)[1]
    for sub, g in options.BADMIN.items():
        for opt in g.refused():
            argv = [sub, opt.flag] + ([] if opt.value is None else ["1"])
            out, err, rc = socket_call(cluster, "badmin", argv, "lsfadmin", started=True)
            assert (out, err, rc) == ("", f"badmin: option {opt.flag} is not supported by lsfemu yet\n" + usage, 255)
        out, err, rc = socket_call(cluster, "badmin", [sub, "-zq"], "lsfadmin", started=True)
        assert (out, err, rc) == ("", "badmin: illegal option -- zq\n" + usage, 255)
    assert snapshot(cluster) == before


def test_badmin_comments_go_with_the_control_records(cluster):
    r = cluster.run(["badmin", "qclose", "-C", "disk full; back at 10", "normal"], user="lsfadmin")
    assert (r.out, r.rc) == ("Queue <normal> is closed\n", 0), r.text
    cluster.run(["badmin", "qopen", "normal"], user="lsfadmin")
    r = cluster.run(["badmin", "hclose", "-C", "maintenance", "hostB"], user="lsfadmin")
    assert r.rc == 0, r.text
    cluster.run(["badmin", "hopen", "hostB"], user="lsfadmin")
    events = (cluster.home / "logdir" / "lsb.events").read_text()
    lines = [l for l in events.splitlines() if l.startswith(('"QUEUE_CTRL"', '"HOST_CTRL"'))]
    assert lines[-4].startswith('"QUEUE_CTRL"') and lines[-4].endswith(' "normal" 0 "lsfadmin" "disk full; back at 10"')
    assert lines[-3].endswith(' "normal" 0 "lsfadmin" ""')
    assert lines[-2].startswith('"HOST_CTRL"') and lines[-2].endswith(' "hostB" 0 "lsfadmin" "maintenance"')


def test_unbuilt_options_in_bsub_script_lines_are_refused(cluster):
    before = snapshot(cluster)
    for opt in options.grammar("bsub").refused():
        line = f"#BSUB {opt.flag}" + ("" if opt.value is None else " 1")
        r = cluster.run(["bsub"], user="user1", stdin=f"#!/bin/sh\n{line}\nsleep 1\n")
        assert (r.out, r.rc) == ("", 255), line
        assert r.err == f"bsub: option {opt.flag} is not supported by lsfemu yet. Job not submitted.\n", line
        break  # one through a real process; the parser is the same for every option
    assert snapshot(cluster) == before


@pytest.mark.parametrize("cmd", sorted(options.GRAMMARS))
def test_options_lsf_does_not_have_get_the_illegal_option_usage(cluster, cmd):
    before = snapshot(cluster)
    out, err, rc = socket_call(cluster, cmd, ["-zq"], "user1", started=True)
    assert (out, err, rc) == ("", f"{cmd}: illegal option -- zq\n" + options.usage(options.grammar(cmd)), 255)
    assert snapshot(cluster) == before


def test_the_misreads_of_the_issue_are_gone(cluster):
    """Each of these was read as something else and submitted a wrong job (or
    listed the wrong jobs) with exit 0."""
    for cmd, argv in (("bsub", ["-env", "all", "sleep", "1"]), ("bsub", ["-Jd", "desc", "sleep", "1"]),
                      ("bsub", ["-outdir", "/tmp/x", "sleep", "1"]), ("bsub", ["-ext", "x", "sleep", "1"]),
                      ("bsub", ["-eptl", "10", "sleep", "1"]), ("bsub", ["-We", "10", "sleep", "1"]),
                      ("bsub", ["-rn", "sleep", "1"]), ("bjobs", ["-sum"]), ("bhist", ["-aff"])):
        flag = argv[0]
        if options.grammar(cmd).by_flag[flag].dest is not None:
            assert f"{cmd} {flag}" in EFFECTS  # built since: the test named there shows what it does
            continue
        before = snapshot(cluster)
        out, err, rc = socket_call(cluster, cmd, argv, "user1", started=True)
        assert rc == 255 and err.startswith(f"{cmd}: option {flag} is not supported"), (argv, err)
        assert snapshot(cluster) == before


# -- the options that work, and the test that shows what each does ------------------------------
#
# "cmd -flag" -> "tests/<file>.py::<test function>" (the test asserts the effect, not only rc 0).
# Kept sorted. tests/unit/test_option_grammar.py holds the tables; this holds them to the tests.

EFFECTS: dict[str, str] = {
    "bacct -C": "tests/e2e/test_bacct.py::test_time_windows",
    "bacct -D": "tests/e2e/test_bacct.py::test_time_windows",
    "bacct -E": "tests/e2e/test_bacct.py::test_eligible_pending_time",
    "bacct -Lp": "tests/e2e/test_bacct.py::test_filters",
    "bacct -M": "tests/e2e/test_bacct.py::test_filters",
    "bacct -N": "tests/e2e/test_bacct.py::test_normalised_cpu_time",
    "bacct -P": "tests/e2e/test_bacct.py::test_filters",
    "bacct -S": "tests/e2e/test_bacct.py::test_time_windows",
    "bacct -UF": "tests/e2e/test_bacct.py::test_wide",
    "bacct -app": "tests/e2e/test_bacct.py::test_filters",
    "bacct -b": "tests/e2e/test_bacct.py::test_brief",
    "bacct -d": "tests/e2e/test_bacct.py::test_filters",
    "bacct -e": "tests/e2e/test_bacct.py::test_filters",
    "bacct -f": "tests/e2e/test_bacct.py::test_file_without_a_cluster",
    "bacct -l": "tests/e2e/test_bacct.py::test_long",
    "bacct -m": "tests/e2e/test_bacct.py::test_filters",
    "bacct -q": "tests/e2e/test_bacct.py::test_filters",
    "bacct -sla": "tests/e2e/test_bacct.py::test_filters",
    "bacct -u": "tests/e2e/test_bacct.py::test_filters",
    "bacct -w": "tests/e2e/test_bacct.py::test_wide",
    "bacct -x": "tests/e2e/test_bacct.py::test_filters",
    "bapp -l": "tests/e2e/test_applications.py::test_app_selects_jobs_and_bapp_counts_them",
    "bapp -w": "tests/e2e/test_applications.py::test_bapp_w_shows_long_names_whole",
    "bbot -u": "tests/e2e/test_priority.py::test_btop_bbot_u_moves_among_the_owners_jobs",
    "bgadd -L": "tests/e2e/test_jobgroups.py::test_bsub_g_makes_groups_and_the_limit_holds",
    "bgdel -c": "tests/e2e/test_jobgroups.py::test_bgdel_c_and_u_and_bgmod_u",
    "bgdel -u": "tests/e2e/test_jobgroups.py::test_bgdel_c_and_u_and_bgmod_u",
    "bgmod -L": "tests/e2e/test_jobgroups.py::test_bsub_g_makes_groups_and_the_limit_holds",
    "bgmod -Ln": "tests/e2e/test_jobgroups.py::test_bsub_g_makes_groups_and_the_limit_holds",
    "bgmod -u": "tests/e2e/test_jobgroups.py::test_bgdel_c_and_u_and_bgmod_u",
    "bhist -C": "tests/e2e/test_bhist.py::test_time_windows",
    "bhist -D": "tests/e2e/test_bhist.py::test_time_windows",
    "bhist -G": "tests/e2e/test_bhist_options.py::test_projects_and_user_groups",
    "bhist -J": "tests/e2e/test_bhist.py::test_filters",
    "bhist -Jd": "tests/e2e/test_bhist_options.py::test_app_and_description_follow_bmod",
    "bhist -Lp": "tests/e2e/test_bhist_options.py::test_license_project_of_a_real_logs_jobs",
    "bhist -N": "tests/e2e/test_bhist_options.py::test_normalized_cpu_time",
    "bhist -P": "tests/e2e/test_bhist_options.py::test_projects_and_user_groups",
    "bhist -S": "tests/e2e/test_bhist.py::test_time_windows",
    "bhist -T": "tests/e2e/test_bhist_options.py::test_chronicle_time_window",
    "bhist -a": "tests/e2e/test_bhist.py::test_filters",
    "bhist -app": "tests/e2e/test_bhist_options.py::test_app_and_description_follow_bmod",
    "bhist -b": "tests/e2e/test_bhist.py::test_brief",
    "bhist -d": "tests/e2e/test_bhist.py::test_filters",
    "bhist -e": "tests/e2e/test_bhist.py::test_filters",
    "bhist -f": "tests/e2e/test_bhist.py::test_file_without_a_cluster",
    "bhist -hostfile": "tests/e2e/test_bsub_plain.py::test_host_file_places_the_tasks_and_is_shown_logged_and_modified",
    "bhist -l": "tests/e2e/test_bhist.py::test_long",
    "bhist -m": "tests/e2e/test_bhist_options.py::test_hosts",
    "bhist -n": "tests/e2e/test_bhist.py::test_number_of_files",
    "bhist -p": "tests/e2e/test_bhist.py::test_filters",
    "bhist -q": "tests/e2e/test_bhist.py::test_filters",
    "bhist -r": "tests/e2e/test_bhist.py::test_filters",
    "bhist -s": "tests/e2e/test_bhist.py::test_filters",
    "bhist -t": "tests/e2e/test_bhist.py::test_chronicle_lists_bmod_items_on_one_line",
    "bhist -u": "tests/e2e/test_bhist.py::test_filters",
    "bhist -w": "tests/e2e/test_bhist.py::test_wide_summary",
    "bhosts -R": "tests/e2e/test_info_views.py::test_bhosts_R_selects_the_hosts_a_requirement_takes",
    "bhosts -X": "tests/e2e/test_host_groups.py::test_host_exceptions_condensed_groups_and_X",
    "bhosts -a": "tests/e2e/test_host_groups.py::test_host_exceptions_condensed_groups_and_X",
    "bhosts -alloc": "tests/e2e/test_info_views.py::test_bhosts_alloc_counts_slots",
    "bhosts -json": "tests/e2e/test_info_views.py::test_bhosts_json_is_lsf_document",
    "bhosts -l": "tests/e2e/test_hosts.py::test_lsload_and_bhosts_l_follow_the_jobs_and_their_reservations",
    "bhosts -noheader": "tests/e2e/test_info_views.py::test_bhosts_o_fields_and_noheader",
    "bhosts -o": "tests/e2e/test_info_views.py::test_bhosts_o_fields_and_noheader",
    "bhosts -s": "tests/e2e/test_shared_resources.py::test_shared_resources_are_read_shown_and_acted_on",
    "bhosts -w": "tests/e2e/test_option_effects.py::test_wide_and_long_info_views",
    "bhosts -x": "tests/e2e/test_host_groups.py::test_host_exceptions_condensed_groups_and_X",
    "bhpart -r": "tests/e2e/test_fairshare.py::test_host_partition_one_priority_across_queues",
    "bjdepinfo -c": "tests/e2e/test_job_control.py::test_bjdepinfo_lists_parents_children_and_what_keeps_a_job_pending",
    "bjdepinfo -l": "tests/e2e/test_job_control.py::test_bjdepinfo_lists_parents_children_and_what_keeps_a_job_pending",
    "bjdepinfo -p": "tests/e2e/test_job_control.py::test_bjdepinfo_lists_parents_children_and_what_keeps_a_job_pending",
    "bjdepinfo -r": "tests/e2e/test_job_control.py::test_bjdepinfo_lists_parents_children_and_what_keeps_a_job_pending",
    "bjgroup -s": "tests/e2e/test_jobgroups.py::test_bjgroup_is_lsf_sample",
    "bjobs -A": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -G": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -J": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -Jd": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -N": "tests/e2e/test_bjobs_display.py::test_n_normalizes_cpu_time_and_adds_finished_jobs",
    "bjobs -P": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -UF": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -W": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -WF": "tests/e2e/test_bjobs_display.py::test_o_fields_show_what_bsub_asked",
    "bjobs -WL": "tests/e2e/test_bjobs_display.py::test_o_fields_show_what_bsub_asked",
    "bjobs -WP": "tests/e2e/test_bjobs_display.py::test_o_fields_show_what_bsub_asked",
    "bjobs -X": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -a": "tests/e2e/test_option_effects.py::test_bjobs_state_filters",
    "bjobs -app": "tests/e2e/test_applications.py::test_app_selects_jobs_and_bapp_counts_them",
    "bjobs -aps": "tests/e2e/test_aps.py::test_seed_bjobs_aps_example",
    "bjobs -d": "tests/e2e/test_option_effects.py::test_bjobs_state_filters",
    "bjobs -env": "tests/e2e/test_bjobs_display.py::test_env_and_script_show_the_submission",
    "bjobs -g": "tests/e2e/test_jobgroups.py::test_g_selects_jobs_in_bjobs_bkill_bstop_bresume",
    "bjobs -hms": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -hostfile": "tests/e2e/test_bsub_plain.py::test_host_file_places_the_tasks_and_is_shown_logged_and_modified",
    "bjobs -json": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -l": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -m": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -noheader": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -o": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -p": "tests/e2e/test_option_effects.py::test_bjobs_state_filters",
    "bjobs -p0": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -p1": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -p2": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -p3": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -pe": "tests/e2e/test_bjobs_display.py::test_pe_pi_pei_split_the_pending_jobs_by_eligibility",
    "bjobs -pei": "tests/e2e/test_bjobs_display.py::test_pe_pi_pei_split_the_pending_jobs_by_eligibility",
    "bjobs -pi": "tests/e2e/test_bjobs_display.py::test_pe_pi_pei_split_the_pending_jobs_by_eligibility",
    "bjobs -prio": "tests/e2e/test_aps.py::test_seed_bjobs_aps_example",
    "bjobs -psum": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -q": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -r": "tests/e2e/test_option_effects.py::test_bjobs_state_filters",
    "bjobs -rusage": "tests/e2e/test_bjobs_display.py::test_rusage_selects_the_jobs_that_reserve_every_named_resource",
    "bjobs -s": "tests/e2e/test_option_effects.py::test_bjobs_state_filters",
    "bjobs -script": "tests/e2e/test_bjobs_display.py::test_env_and_script_show_the_submission",
    "bjobs -sum": "tests/e2e/test_bjobs_display.py::test_filters_p_g_m_jd_and_x",
    "bjobs -u": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -w": "tests/e2e/test_option_effects.py::test_bjobs_selection_and_forms",
    "bjobs -x": "tests/e2e/test_bjobs_exceptions.py::test_x_lists_overrun_underrun_and_idle_jobs",
    "bkill -C": "tests/e2e/test_control_reasons.py::test_bkill_C_keeps_the_reason_with_the_job_its_record_and_its_history",
    "bkill -J": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bkill -app": "tests/e2e/test_applications.py::test_app_selects_jobs_and_bapp_counts_them",
    "bkill -b": "tests/e2e/test_control_reasons.py::test_bkill_b_kills_with_TERM_BUCKET_KILL_and_cleans_pending_jobs_at_once",
    "bkill -d": "tests/e2e/test_job_control.py::test_bkill_d_records_a_started_job_done_and_a_pending_one_exit",
    "bkill -g": "tests/e2e/test_jobgroups.py::test_g_selects_jobs_in_bjobs_bkill_bstop_bresume",
    "bkill -l": "tests/e2e/test_job_control.py::test_bkill_l_lists_the_signal_names",
    "bkill -m": "tests/e2e/test_job_control.py::test_m_selects_the_jobs_on_a_host",
    "bkill -q": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bkill -r": "tests/e2e/test_job_control_wall.py::test_bkill_r_removes_the_job_without_waiting_for_it",
    "bkill -s": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bkill -stat": "tests/e2e/test_job_control.py::test_bkill_stat_kills_the_jobs_in_that_state_only",
    "bkill -u": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "blimits -A": "tests/e2e/test_limits.py::test_blimits_w_shows_long_names_whole",
    "blimits -P": "tests/e2e/test_limits.py::test_project_jobs_limit",
    "blimits -a": "tests/e2e/test_limits.py::test_vertical_tabular_form_with_a_host_and_a_queue",
    "blimits -c": "tests/e2e/test_limits.py::test_users_all_slots_then_reconfig",
    "blimits -m": "tests/e2e/test_limits.py::test_queue_per_host_slots_and_the_host_count",
    "blimits -n": "tests/e2e/test_limits.py::test_vertical_tabular_form_with_a_host_and_a_queue",
    "blimits -q": "tests/e2e/test_limits.py::test_vertical_tabular_form_with_a_host_and_a_queue",
    "blimits -u": "tests/e2e/test_limits.py::test_users_all_slots_then_reconfig",
    "blimits -w": "tests/e2e/test_limits.py::test_blimits_w_shows_long_names_whole",
    "bmig -J": "tests/e2e/test_job_control.py::test_brequeue_h_holds_the_job_and_j_selects_by_name",
    "bmig -u": "tests/e2e/test_option_effects.py::test_bmig_and_brequeue_select_jobs",
    "bmod -B": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -Bn": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -E": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -En": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -Ep": "tests/e2e/test_bmod.py::test_bmod_post_exec_and_runtime_estimate",
    "bmod -Epn": "tests/e2e/test_bmod.py::test_bmod_post_exec_and_runtime_estimate",
    "bmod -G": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -Gn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -J": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -Jd": "tests/e2e/test_bmod.py::test_bmod_description_login_shell_input_and_outdir",
    "bmod -Jdn": "tests/e2e/test_bmod.py::test_bmod_description_login_shell_input_and_outdir",
    "bmod -Jn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -L": "tests/e2e/test_bmod.py::test_bmod_description_login_shell_input_and_outdir",
    "bmod -Ln": "tests/e2e/test_bmod.py::test_bmod_description_login_shell_input_and_outdir",
    "bmod -M": "tests/e2e/test_bmod.py::test_bmod_memory_limit_of_a_running_job_with_lsb_job_memlimit",
    "bmod -Mn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -N": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -Ne": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -Nn": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -P": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -Pn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -R": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -Rn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -W": "tests/e2e/test_bmod.py::test_bmod_running_job_rules",
    "bmod -We": "tests/e2e/test_bmod.py::test_bmod_post_exec_and_runtime_estimate",
    "bmod -Wen": "tests/e2e/test_bmod.py::test_bmod_post_exec_and_runtime_estimate",
    "bmod -Wn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -Z": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -app": "tests/e2e/test_applications.py::test_bmod_app_changes_the_profile",
    "bmod -appn": "tests/e2e/test_applications.py::test_bmod_app_changes_the_profile",
    "bmod -aps": "tests/e2e/test_aps.py::test_bmod_aps_rules",
    "bmod -apsn": "tests/e2e/test_aps.py::test_bmod_aps_rules",
    "bmod -b": "tests/e2e/test_bmod.py::test_bmod_begin_and_termination_times",
    "bmod -bn": "tests/e2e/test_bmod.py::test_bmod_begin_and_termination_times",
    "bmod -c": "tests/e2e/test_cpu_limit.py::test_bmod_c_and_cn",
    "bmod -cn": "tests/e2e/test_cpu_limit.py::test_bmod_c_and_cn",
    "bmod -cwd": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -cwdn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -e": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -en": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -eo": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -eptl": "tests/e2e/test_bjobs_display.py::test_pending_time_limits_job_over_lsb_params",
    "bmod -eptln": "tests/e2e/test_bjobs_display.py::test_pending_time_limits_job_over_lsb_params",
    "bmod -g": "tests/e2e/test_jobgroups.py::test_bmod_g_moves_a_job_between_groups",
    "bmod -gn": "tests/e2e/test_jobgroups.py::test_bmod_g_moves_a_job_between_groups",
    "bmod -hostfile": "tests/e2e/test_bsub_plain.py::test_host_file_places_the_tasks_and_is_shown_logged_and_modified",
    "bmod -hostfilen": "tests/e2e/test_bsub_plain.py::test_host_file_places_the_tasks_and_is_shown_logged_and_modified",
    "bmod -i": "tests/e2e/test_bmod.py::test_bmod_description_login_shell_input_and_outdir",
    "bmod -in": "tests/e2e/test_bmod.py::test_bmod_description_login_shell_input_and_outdir",
    "bmod -m": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -mn": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -n": "tests/e2e/test_bmod.py::test_bmod_slots",
    "bmod -nn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -o": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -on": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -oo": "tests/e2e/test_bmod.py::test_bmod_running_job_rules",
    "bmod -outdir": "tests/e2e/test_bmod.py::test_bmod_description_login_shell_input_and_outdir",
    "bmod -outdirn": "tests/e2e/test_bmod.py::test_bmod_description_login_shell_input_and_outdir",
    "bmod -ptl": "tests/e2e/test_bjobs_display.py::test_pending_time_limits_job_over_lsb_params",
    "bmod -ptln": "tests/e2e/test_bjobs_display.py::test_pending_time_limits_job_over_lsb_params",
    "bmod -q": "tests/e2e/test_bmod.py::test_bmod_pending_fields_show_and_are_logged",
    "bmod -qn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -r": "tests/e2e/test_bmod.py::test_bmod_rerunnable_job_reruns_after_a_host_failure",
    "bmod -rn": "tests/e2e/test_bmod.py::test_bmod_reset_forms",
    "bmod -sp": "tests/e2e/test_priority.py::test_bmod_sp_rules",
    "bmod -spn": "tests/e2e/test_priority.py::test_bmod_sp_rules",
    "bmod -t": "tests/e2e/test_bmod.py::test_bmod_begin_and_termination_times",
    "bmod -tn": "tests/e2e/test_bmod.py::test_bmod_begin_and_termination_times",
    "bmod -u": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -un": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -w": "tests/e2e/test_bmod.py::test_bmod_dependency_and_its_reset",
    "bmod -wn": "tests/e2e/test_bmod.py::test_bmod_dependency_and_its_reset",
    "bmod -x": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bmod -xn": "tests/e2e/test_bmod.py::test_bmod_mail_notification_placement_and_pre_exec",
    "bparams -a": "tests/e2e/test_info_views.py::test_bparams_a_lists_every_parameter_in_force",
    "bparams -l": "tests/e2e/test_fairshare.py::test_bparams_l_lists_every_factor",
    "bpeek -J": "tests/e2e/test_job_control.py::test_bpeek_answers_as_lsf_for_jobs_that_wrote_nothing",
    "bpeek -m": "tests/e2e/test_job_control.py::test_bpeek_answers_as_lsf_for_jobs_that_wrote_nothing",
    "bpeek -q": "tests/e2e/test_job_control.py::test_bpeek_answers_as_lsf_for_jobs_that_wrote_nothing",
    "bqueues -alloc": "tests/e2e/test_info_views.py::test_bqueues_alloc_counts_slots",
    "bqueues -json": "tests/e2e/test_info_views.py::test_bqueues_json_is_lsf_document",
    "bqueues -l": "tests/e2e/test_queue_runlimit.py::test_bqueues_l_shows_the_default_and_the_maximum",
    "bqueues -m": "tests/e2e/test_info_views.py::test_bqueues_u_and_m_select_the_queues",
    "bqueues -noheader": "tests/e2e/test_info_views.py::test_bqueues_o_fields_aliases_widths_and_delimiter",
    "bqueues -o": "tests/e2e/test_info_views.py::test_bqueues_o_fields_aliases_widths_and_delimiter",
    "bqueues -r": "tests/e2e/test_option_effects.py::test_wide_and_long_info_views",
    "bqueues -u": "tests/e2e/test_info_views.py::test_bqueues_u_and_m_select_the_queues",
    "bqueues -w": "tests/e2e/test_option_effects.py::test_wide_and_long_info_views",
    "brequeue -H": "tests/e2e/test_job_control.py::test_brequeue_h_holds_the_job_and_j_selects_by_name",
    "brequeue -J": "tests/e2e/test_job_control.py::test_brequeue_h_holds_the_job_and_j_selects_by_name",
    "brequeue -a": "tests/e2e/test_option_effects.py::test_bmig_and_brequeue_select_jobs",
    "brequeue -d": "tests/e2e/test_option_effects.py::test_bmig_and_brequeue_select_jobs",
    "brequeue -e": "tests/e2e/test_option_effects.py::test_bmig_and_brequeue_select_jobs",
    "brequeue -r": "tests/e2e/test_option_effects.py::test_bmig_and_brequeue_select_jobs",
    "brequeue -u": "tests/e2e/test_option_effects.py::test_bmig_and_brequeue_select_jobs",
    "bresume -C": "tests/e2e/test_control_reasons.py::test_bstop_C_and_bresume_C_keep_their_reasons",
    "bresume -J": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bresume -app": "tests/e2e/test_applications.py::test_app_selects_jobs_and_bapp_counts_them",
    "bresume -g": "tests/e2e/test_jobgroups.py::test_g_selects_jobs_in_bjobs_bkill_bstop_bresume",
    "bresume -m": "tests/e2e/test_job_control.py::test_m_selects_the_jobs_on_a_host",
    "bresume -q": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bresume -u": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "brun -m": "tests/e2e/test_job_control.py::test_brun_forces_a_pending_job_past_the_user_limit",
    "bstop -C": "tests/e2e/test_control_reasons.py::test_bstop_C_and_bresume_C_keep_their_reasons",
    "bstop -J": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bstop -app": "tests/e2e/test_applications.py::test_app_selects_jobs_and_bapp_counts_them",
    "bstop -g": "tests/e2e/test_jobgroups.py::test_g_selects_jobs_in_bjobs_bkill_bstop_bresume",
    "bstop -m": "tests/e2e/test_job_control.py::test_m_selects_the_jobs_on_a_host",
    "bstop -q": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bstop -u": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bsub -B": "tests/e2e/test_bsub_plain.py::test_mail_goes_to_the_mailbox_file_of_the_user",
    "bsub -E": "tests/e2e/test_prepost_exec.py::test_pre_and_post_exec_really_run_around_the_job",
    "bsub -Ep": "tests/e2e/test_prepost_exec.py::test_pre_and_post_exec_really_run_around_the_job",
    "bsub -G": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -H": "tests/e2e/test_bsub_plain.py::test_hold_pends_psusp_until_bresume",
    "bsub -I": "tests/e2e/test_bsub_wait.py::test_I_streams_output_as_the_job_runs_and_exits_with_its_code",
    "bsub -Ip": "tests/e2e/test_bsub_wait.py::test_I_passes_input_and_Ip_runs_on_a_terminal",
    "bsub -Is": "tests/e2e/test_bsub_wait.py::test_I_passes_input_and_Ip_runs_on_a_terminal",
    "bsub -J": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -Jd": "tests/e2e/test_bsub_plain.py::test_job_description_in_bjobs_l",
    "bsub -K": "tests/e2e/test_bsub_wait.py::test_K_waits_while_the_virtual_clock_runs_and_exits_with_the_jobs_code",
    "bsub -L": "tests/e2e/test_bsub_exec.py::test_login_shell_runs_the_job_as_a_login_shell",
    "bsub -M": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -N": "tests/e2e/test_bsub_plain.py::test_mail_goes_to_the_mailbox_file_of_the_user",
    "bsub -Ne": "tests/e2e/test_bsub_plain.py::test_mail_goes_to_the_mailbox_file_of_the_user",
    "bsub -P": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -R": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -W": "tests/e2e/test_option_effects.py::test_bsub_W_ends_the_job_at_its_run_limit",
    "bsub -We": "tests/e2e/test_bsub_plain.py::test_runtime_estimate_is_kept_and_does_not_kill",
    "bsub -app": "tests/e2e/test_applications.py::test_bsub_app_takes_the_profile_limits",
    "bsub -b": "tests/e2e/test_bsub_plain.py::test_begin_time_pends_with_reason_then_starts",
    "bsub -c": "tests/e2e/test_cpu_limit.py::test_a_job_reaching_its_cpu_limit_is_killed_with_TERM_CPULIMIT",
    "bsub -cwd": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -e": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -env": "tests/e2e/test_bsub_exec.py::test_env_lists_none_and_all_make_the_jobs_environment",
    "bsub -eo": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -eptl": "tests/e2e/test_bjobs_display.py::test_pending_time_limits_job_over_lsb_params",
    "bsub -g": "tests/e2e/test_jobgroups.py::test_bsub_g_makes_groups_and_the_limit_holds",
    "bsub -gpu": "tests/e2e/test_fairshare.py::test_gpu_run_time_and_adjustment_plugin_terms",
    "bsub -hostfile": "tests/e2e/test_bsub_plain.py::test_host_file_places_the_tasks_and_is_shown_logged_and_modified",
    "bsub -i": "tests/e2e/test_bsub_exec.py::test_input_file_is_the_jobs_stdin_and_is_keeps_a_copy",
    "bsub -is": "tests/e2e/test_bsub_exec.py::test_input_file_is_the_jobs_stdin_and_is_keeps_a_copy",
    "bsub -m": "tests/e2e/test_bsub_plain.py::test_m_limits_the_candidates_and_orders_them_by_preference",
    "bsub -n": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -o": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -oo": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -outdir": "tests/e2e/test_bsub_exec.py::test_outdir_is_made_at_the_start_and_holds_relative_output",
    "bsub -pack": "tests/e2e/test_bsub_pack.py::test_a_pack_submits_every_request_as_bsub_would",
    "bsub -ptl": "tests/e2e/test_bjobs_display.py::test_pending_time_limits_job_over_lsb_params",
    "bsub -q": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -r": "tests/e2e/test_priority.py::test_host_failure_reruns_rerunnable_jobs_keeping_priority",
    "bsub -rn": "tests/e2e/test_bsub_plain.py::test_rerun_never_overrides_a_rerunnable_queue",
    "bsub -sp": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -t": "tests/e2e/test_bsub_plain.py::test_termination_time_kills_running_and_aborts_pending",
    "bsub -u": "tests/e2e/test_bsub_plain.py::test_mail_goes_to_the_mailbox_file_of_the_user",
    "bsub -w": "tests/e2e/test_option_effects.py::test_bsub_options_are_what_bjobs_shows",
    "bsub -x": "tests/e2e/test_bsub_plain.py::test_exclusive_job_gets_an_empty_host_and_keeps_it_alone",
    "bswitch -J": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bswitch -m": "tests/e2e/test_job_control.py::test_m_selects_the_jobs_on_a_host",
    "bswitch -q": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "bswitch -u": "tests/e2e/test_option_effects.py::test_control_commands_select_by_name_queue_and_user",
    "btop -u": "tests/e2e/test_priority.py::test_btop_bbot_u_moves_among_the_owners_jobs",
    "bugroup -l": "tests/e2e/test_fairshare.py::test_bugroup",
    "bugroup -r": "tests/e2e/test_info_views.py::test_bugroup_r_expands_subgroups",
    "bugroup -w": "tests/e2e/test_option_effects.py::test_wide_and_long_info_views",
    "busers -alloc": "tests/e2e/test_info_views.py::test_busers_o_json_and_alloc",
    "busers -json": "tests/e2e/test_info_views.py::test_busers_o_json_and_alloc",
    "busers -o": "tests/e2e/test_info_views.py::test_busers_o_json_and_alloc",
    "busers -w": "tests/e2e/test_option_effects.py::test_wide_and_long_info_views",
    "lsclusters -w": "tests/e2e/test_base_commands.py::test_lsclusters_shows_the_cluster_its_master_admin_and_hosts",
    "lshosts -R": "tests/e2e/test_hosts.py::test_lshosts_shows_the_configured_hosts",
    "lshosts -a": "tests/e2e/test_shared_resources.py::test_shared_resources_are_read_shown_and_acted_on",
    "lshosts -json": "tests/e2e/test_base_commands.py::test_lshosts_o_and_json_and_lsinfo_w",
    "lshosts -l": "tests/e2e/test_hosts.py::test_lshosts_shows_the_configured_hosts",
    "lshosts -o": "tests/e2e/test_base_commands.py::test_lshosts_o_and_json_and_lsinfo_w",
    "lshosts -s": "tests/e2e/test_shared_resources.py::test_shared_resources_are_read_shown_and_acted_on",
    "lshosts -w": "tests/e2e/test_hosts.py::test_lshosts_shows_the_configured_hosts",
    "lsinfo -M": "tests/e2e/test_hosts.py::test_lsinfo",
    "lsinfo -l": "tests/e2e/test_hosts.py::test_lsinfo",
    "lsinfo -m": "tests/e2e/test_hosts.py::test_lsinfo",
    "lsinfo -r": "tests/e2e/test_hosts.py::test_lsinfo",
    "lsinfo -t": "tests/e2e/test_hosts.py::test_lsinfo",
    "lsinfo -w": "tests/e2e/test_base_commands.py::test_lshosts_o_and_json_and_lsinfo_w",
    "lsload -E": "tests/e2e/test_hosts.py::test_lsload_and_bhosts_l_follow_the_jobs_and_their_reservations",
    "lsload -I": "tests/e2e/test_hosts.py::test_lsload_and_bhosts_l_follow_the_jobs_and_their_reservations",
    "lsload -N": "tests/e2e/test_hosts.py::test_lsload_and_bhosts_l_follow_the_jobs_and_their_reservations",
    "lsload -R": "tests/e2e/test_hosts.py::test_lsload_and_bhosts_l_follow_the_jobs_and_their_reservations",
    "lsload -a": "tests/e2e/test_shared_resources.py::test_shared_resources_are_read_shown_and_acted_on",
    "lsload -json": "tests/e2e/test_base_commands.py::test_lsload_o_and_json_follow_the_jobs",
    "lsload -l": "tests/e2e/test_hosts.py::test_lsload_and_bhosts_l_follow_the_jobs_and_their_reservations",
    "lsload -n": "tests/e2e/test_hosts.py::test_lsload_and_bhosts_l_follow_the_jobs_and_their_reservations",
    "lsload -o": "tests/e2e/test_base_commands.py::test_lsload_o_and_json_follow_the_jobs",
    "lsload -s": "tests/e2e/test_shared_resources.py::test_shared_resources_are_read_shown_and_acted_on",
    "lsload -w": "tests/e2e/test_hosts.py::test_lsload_and_bhosts_l_follow_the_jobs_and_their_reservations",
}


def _implemented() -> list[str]:
    return sorted(f"{cmd} {o.flag}" for cmd, g in options.GRAMMARS.items() for o in g.implemented())


def test_every_implemented_option_names_the_test_of_its_effect():
    missing = [k for k in _implemented() if k not in EFFECTS]
    assert not missing, f"no test named for: {missing}"


def test_the_named_tests_exist():
    assert list(EFFECTS) == sorted(EFFECTS)
    literal = next(n.value for n in ast.parse(Path(__file__).read_text()).body
                   if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "EFFECTS")
    keys = [k.value for k in literal.keys]
    assert len(keys) == len(set(keys)), "a key given twice (the first is lost)"
    assert set(EFFECTS) <= set(_implemented()), set(EFFECTS) - set(_implemented())
    for key, where in EFFECTS.items():
        path, _, name = where.partition("::")
        tree = ast.parse((ROOT / path).read_text())
        names = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        assert re.fullmatch(r"test_\w+", name) and name in names, f"{key}: {where} not found"
