"""Transparent-huge-pages settings read from fixtures of /sys and /proc, and from this host."""
import os

from analysis.collect import thp


def host_tree(tmp_path, enabled, defrag, max_ptes_none, overcommit):
    files = {"sys/kernel/mm/transparent_hugepage/enabled": enabled,
             "sys/kernel/mm/transparent_hugepage/defrag": defrag,
             "sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none": max_ptes_none,
             "proc/sys/vm/overcommit_memory": overcommit}
    for rel, text in files.items():
        if text is None:
            continue
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text + "\n")
    return str(tmp_path)


def test_ubuntu_default_is_not_what_mongodb_8_asks_for(tmp_path):
    got = thp.gather(host_tree(tmp_path, "always [madvise] never", "always defer defer+madvise [madvise] never",
                               "511", "0"))
    assert got["enabled"] == "madvise" and got["defrag"] == "madvise"
    assert got["max_ptes_none"] == 511 and got["overcommit_memory"] == 0
    assert got["matches_mongodb_8_0"] is False
    assert "enabled=madvise (MongoDB 8.0: always)" in got["differs"]
    assert len(got["differs"]) == 4
    assert "NOT as MongoDB 8.0 recommends" in thp.describe(got)


def test_mongodb_service_file_settings_match(tmp_path):
    got = thp.gather(host_tree(tmp_path, "[always] madvise never", "always defer [defer+madvise] madvise never",
                               "0", "1"))
    assert got["matches_mongodb_8_0"] is True and got["differs"] == []
    assert thp.describe(got).endswith("as MongoDB 8.0 recommends")


def test_kernel_without_thp_is_unknown_not_a_match(tmp_path):
    got = thp.gather(host_tree(tmp_path, None, None, None, "1"))
    assert got["enabled"] is None and got["matches_mongodb_8_0"] is None


def test_this_host():
    got = thp.gather()
    with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
        assert f"[{got['enabled']}]" in f.read()
    assert got["matches_mongodb_8_0"] in (True, False)
