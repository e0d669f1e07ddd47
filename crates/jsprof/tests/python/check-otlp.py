# Reads `jsprof export --format otlp` with the official generated code (the `opentelemetry-proto`
# Python package), run by the CLI tests (crates/jsprof/tests/it/export.rs; agent.rs reads
# `jsprof lake export --format otlp` with it too):
#   python check-otlp.py FILE [--json] -> {resource, scope, profiles: [{sample_type, attributes,
#                                          time_unix_nano, duration_nano, period, samples, total,
#                                          functions}]}
# --json: FILE is OTLP/JSON, parsed by protobuf's json_format (which refuses unknown fields).
# `functions` sums each sample's value on its first (leaf) location's function, keyed by name, file
# and start line. Fails (exit 1, a message on stderr) when a dictionary rule the proto states is
# broken: a table without its zero entry first, or an index outside its table.
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2


def fail(message):
    sys.stderr.write(f"check-otlp: {message}\n")
    sys.exit(1)


def at(table, index, what):
    if not 0 <= index < len(table):
        fail(f"{what} index {index} outside its table of {len(table)}")
    return table[index]


def any_value(v):
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


request = profiles_service_pb2.ExportProfilesServiceRequest()
with open(sys.argv[1], "rb") as f:
    if sys.argv[2:] == ["--json"]:
        json_format.Parse(f.read(), request)
    else:
        request.ParseFromString(f.read())
d = request.dictionary
for name in ("mapping_table", "location_table", "function_table", "link_table",
             "attribute_table", "stack_table"):
    table = getattr(d, name)
    if not table or table[0].ByteSize() != 0:
        fail(f"{name}[0] is not the zero value")
if not d.string_table or d.string_table[0] != "":
    fail('string_table[0] is not ""')
s = lambda i: at(d.string_table, i, "string")

if len(request.resource_profiles) != 1 or len(request.resource_profiles[0].scope_profiles) != 1:
    fail("expected one ResourceProfiles with one ScopeProfiles")
rp = request.resource_profiles[0]
sp = rp.scope_profiles[0]
profiles = []
for p in sp.profiles:
    functions = {}
    total = 0
    for sample in p.samples:
        if len(sample.values) != 1 or sample.timestamps_unix_nano:
            fail("expected one aggregated value per sample")
        stack = at(d.stack_table, sample.stack_index, "stack")
        if not stack.location_indices:
            fail("a sample on an empty stack")
        locations = [at(d.location_table, i, "location") for i in stack.location_indices]
        for loc in locations:
            if len(loc.lines) != 1:
                fail("expected one line per location")
            at(d.function_table, loc.lines[0].function_index, "function")
        leaf = d.function_table[locations[0].lines[0].function_index]
        key = (s(leaf.name_strindex), s(leaf.filename_strindex), leaf.start_line)
        functions[key] = functions.get(key, 0) + sample.values[0]
        total += sample.values[0]
    attributes = {}
    for i in p.attribute_indices:
        a = at(d.attribute_table, i, "attribute")
        attributes[s(a.key_strindex)] = any_value(a.value)
    profiles.append({
        "sample_type": [s(p.sample_type.type_strindex), s(p.sample_type.unit_strindex)],
        "attributes": attributes,
        "time_unix_nano": p.time_unix_nano,
        "duration_nano": p.duration_nano,
        "period": p.period,
        "samples": len(p.samples),
        "total": total,
        "functions": [[n, u, line, v] for (n, u, line), v in functions.items()],
    })
json.dump({
    "resource": {a.key: any_value(a.value) for a in rp.resource.attributes},
    "scope": [sp.scope.name, sp.scope.version],
    "profiles": profiles,
}, sys.stdout)
