"""The Kubernetes manifests under deploy/kubernetes: valid against the Kubernetes API schemas
(kubernetes-validate, strict: unknown fields are errors), and consistent with the `ember`
command line and with each other."""

import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from conftest import ember_binary

DEPLOY = Path(__file__).resolve().parent.parent / "deploy" / "kubernetes"
KUBERNETES_VERSION = "1.33"


def documents():
    docs = []
    for path in sorted(DEPLOY.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        docs += [(path.name, d) for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def by_kind(kind):
    return {d["metadata"]["name"]: d for _, d in documents() if d["kind"] == kind}


def container(deployment):
    (c,) = deployment["spec"]["template"]["spec"]["containers"]
    return c


def flags(args):
    return {a.split("=", 1)[0]: (a.split("=", 1)[1] if "=" in a else None) for a in args if a.startswith("--")}


@pytest.mark.parametrize("name,doc", documents(), ids=lambda v: v if isinstance(v, str) else v["kind"])
def test_schema(name, doc):
    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def test_kustomization_lists_every_manifest():
    listed = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())["resources"]
    present = sorted(p.name for p in DEPLOY.glob("*.yaml") if p.name != "kustomization.yaml")
    assert sorted(listed) == present


def test_deployments_have_probes_and_resources():
    deployments = by_kind("Deployment")
    assert set(deployments) == {"ember-driver", "ember-worker"}
    for name, d in deployments.items():
        c = container(d)
        assert c.get("readinessProbe"), f"{name}: no readiness probe"
        assert c.get("livenessProbe"), f"{name}: no liveness probe"
        assert c["resources"]["requests"]["cpu"] and c["resources"]["requests"]["memory"], name
        selector = d["spec"]["selector"]["matchLabels"]
        labels = d["spec"]["template"]["metadata"]["labels"]
        assert selector.items() <= labels.items(), f"{name}: the selector does not match the pods"


def test_arguments_are_ember_flags(request):
    """Every flag the manifests pass exists in `ember server --help` / `ember worker --help`."""
    binary = ember_binary(request.config)
    for name, d in by_kind("Deployment").items():
        args = container(d)["args"]
        command = args[0]
        help_text = subprocess.run([str(binary), command, "--help"], capture_output=True, text=True, check=True).stdout
        for flag in flags(args):
            assert flag in help_text, f"{name}: `ember {command}` has no {flag}"


def test_workers_join_the_driver_service():
    driver = container(by_kind("Deployment")["ember-driver"])
    worker = container(by_kind("Deployment")["ember-worker"])
    service = by_kind("Service")["ember-driver"]
    driver_flags = flags(driver["args"])
    worker_flags = flags(worker["args"])
    assert driver_flags["--mode"] == "cluster"
    assert driver_flags["--workers"] == "0", "the driver must wait for the worker pods"
    driver_port = int(driver_flags["--driver-port"])
    service_ports = {p["name"]: p for p in service["spec"]["ports"]}
    assert service_ports["driver"]["port"] == driver_port
    assert worker_flags["--driver"] == f"http://{service['metadata']['name']}:{driver_port}"
    assert int(service_ports["spark-connect"]["port"]) == int(driver_flags["--port"])
    # The service selects the driver pods only.
    pods = by_kind("Deployment")["ember-driver"]["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pods.items()
    assert not service["spec"]["selector"].items() <= (
        by_kind("Deployment")["ember-worker"]["spec"]["template"]["metadata"]["labels"].items()
    )
    # Workers advertise an address other pods can reach.
    assert worker_flags["--host"] == "0.0.0.0"
    assert worker_flags["--advertise-host"] == "$(POD_IP)"
    env = {e["name"]: e for e in worker["env"]}
    assert env["POD_IP"]["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
    assert int(worker_flags["--port"]) in {p["containerPort"] for p in worker["ports"]}
