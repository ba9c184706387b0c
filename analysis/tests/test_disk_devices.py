"""The device(s) under Docker's data root, from fixture trees of /proc/self/mountinfo, /sys/dev/block
and /sys/block for the layouts users have, and from this machine."""
import os
import subprocess

from analysis.collect import disk_devices


def mountinfo(tmp_path, *mounts):
    p = tmp_path / "proc/self"
    p.mkdir(parents=True, exist_ok=True)
    lines = [f"{20 + i} 1 {mm} / {mnt} rw,relatime shared:1 - {fs} {src} rw"
             for i, (mm, mnt, fs, src) in enumerate(mounts)]
    (p / "mountinfo").write_text("\n".join(lines) + "\n")


def block(tmp_path, name, majmin, devpath, slaves=(), dm_name=None, partitions=()):
    """A whole device under sys/devices/<devpath>/<name>, linked from sys/block and sys/dev/block."""
    d = tmp_path / "sys/devices" / devpath / name
    d.mkdir(parents=True)
    (d / "dev").write_text(majmin + "\n")
    (d / "slaves").mkdir()
    for s in slaves:
        (d / "slaves" / s).symlink_to(f"../../{s}")  # target need not resolve for the lab
    if dm_name:
        (d / "dm").mkdir()
        (d / "dm/name").write_text(dm_name + "\n")
    for pname, pmm in partitions:
        (d / pname).mkdir()
        (d / pname / "partition").write_text("1\n")
        (d / pname / "dev").write_text(pmm + "\n")
        link = tmp_path / "sys/dev/block" / pmm
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(d / pname, link.parent))
    (tmp_path / "sys/block").mkdir(parents=True, exist_ok=True)
    (tmp_path / "sys/block" / name).symlink_to(os.path.relpath(d, tmp_path / "sys/block"))
    link = tmp_path / "sys/dev/block" / majmin
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(d, link.parent))


PCI = "pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block"


def test_plain_disk_partition_counts_the_disk(tmp_path):
    block(tmp_path, "sda", "8:0", PCI, partitions=[("sda1", "8:1"), ("sda2", "8:2")])
    mountinfo(tmp_path, ("8:1", "/boot", "ext4", "/dev/sda1"), ("8:2", "/", "ext4", "/dev/sda2"))
    got = disk_devices.discover("/var/lib/docker", str(tmp_path))
    assert got["mount"] == "/" and got["source"] == "/dev/sda2"
    assert got["count"] == [{"name": "sda", "major_minor": "8:0", "dm_name": None}]
    assert got["stack"] == ["sda"] and got["reason"] is None


def test_lvm_counts_the_logical_volume_once(tmp_path):
    """Ubuntu Server's default: ext4 on ubuntu--vg-ubuntu--lv (dm-0) on sda3."""
    block(tmp_path, "sda", "8:0", PCI, partitions=[("sda3", "8:3")])
    block(tmp_path, "dm-0", "253:0", "virtual/block", slaves=["sda3"], dm_name="ubuntu--vg-ubuntu--lv")
    mountinfo(tmp_path, ("253:0", "/", "ext4", "/dev/mapper/ubuntu--vg-ubuntu--lv"))
    got = disk_devices.discover("/var/lib/docker", str(tmp_path))
    assert got["count"] == [{"name": "dm-0", "major_minor": "253:0", "dm_name": "ubuntu--vg-ubuntu--lv"}]
    assert got["stack"] == ["dm-0", "sda"]


def test_dm_crypt_on_lvm_counts_the_top_of_three(tmp_path):
    block(tmp_path, "sda", "8:0", PCI, partitions=[("sda3", "8:3")])
    block(tmp_path, "dm-0", "253:0", "virtual/block", slaves=["sda3"], dm_name="vg-root")
    block(tmp_path, "dm-1", "253:1", "virtual/block", slaves=["dm-0"], dm_name="luks-root")
    mountinfo(tmp_path, ("253:1", "/", "ext4", "/dev/mapper/luks-root"),
              ("253:1", "/var/lib/docker", "ext4", "/dev/mapper/luks-root"))
    got = disk_devices.discover("/var/lib/docker", str(tmp_path))
    assert [c["name"] for c in got["count"]] == ["dm-1"]
    assert got["stack"] == ["dm-1", "dm-0", "sda"]


def test_nvme_partition_under_a_separate_docker_mount(tmp_path):
    block(tmp_path, "nvme0n1", "259:0", "pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0",
          partitions=[("nvme0n1p1", "259:1"), ("nvme0n1p2", "259:2")])
    block(tmp_path, "sda", "8:0", PCI, partitions=[("sda1", "8:1")])
    mountinfo(tmp_path, ("8:1", "/", "ext4", "/dev/sda1"), ("259:2", "/srv/docker", "xfs", "/dev/nvme0n1p2"))
    got = disk_devices.discover("/srv/docker", str(tmp_path))
    assert got["count"] == [{"name": "nvme0n1", "major_minor": "259:0", "dm_name": None}]
    assert disk_devices.discover("/var/lib/docker", str(tmp_path))["count"][0]["name"] == "sda"


def test_overlay_root_is_no_block_device_and_says_so(tmp_path):
    mountinfo(tmp_path, ("0:45", "/", "overlay", "overlay"))
    got = disk_devices.discover("/var/lib/docker", str(tmp_path))
    assert got["count"] == [] and "not on a block device" in got["reason"] and "overlay" in got["reason"]


def test_series_filter_by_device_label_and_major_minor():
    counted = [{"name": "dm-1", "major_minor": "253:1", "dm_name": "luks-root"}]
    assert disk_devices.matches({"device": "/dev/dm-1"}, counted)
    assert disk_devices.matches({"device": "/dev/mapper/luks-root"}, counted)
    assert not disk_devices.matches({"device": "/dev/dm-0"}, counted)
    assert not disk_devices.matches({"device": "/dev/sda"}, counted)
    assert disk_devices.matches({"major": "253", "minor": "1"}, counted)
    assert not disk_devices.matches({"major": "8", "minor": "0"}, counted)


def test_this_machine():
    got = disk_devices.gather()
    # the mount holding Docker's data root, as util-linux reads it (not mountinfo parsed by the lab)
    target, fstype = subprocess.run(["findmnt", "-n", "-o", "TARGET,FSTYPE", "-T", got["docker_root"]],
                                    capture_output=True, text=True, check=True).stdout.split()
    assert (got["mount"], got["fstype"]) == (target, fstype)
    if got["count"]:
        name = got["count"][0]["name"]
        assert os.path.isdir(f"/sys/block/{name}")
        with open(f"/sys/block/{name}/dev") as f:
            assert f.read().strip() == got["count"][0]["major_minor"]
    else:
        assert got["reason"]
