# lit configuration for flyc's code generator tests (tests/codegen/*.test).
# Run through tests/codegen/run.sh, which passes the build folder.
import os
import lit.formats

config.name = "flyc-codegen"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
build = lit_config.params.get("build", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
build = os.path.abspath(build)
config.test_exec_root = os.path.join(build, "tests", "codegen")
bindir = "/usr/lib/llvm-22/bin"
config.substitutions.append(("%cgtool", os.path.join(build, "bin", "cgtool")))
config.substitutions.append(("%flyc", os.path.join(build, "bin", "flyc")))
config.substitutions.append(("%top", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))))
for tool in ["FileCheck", "llvm-readelf", "llvm-objdump", "clang-offload-bundler", "llvm-dwarfdump", "llvm-objcopy"]:
    config.substitutions.append(("%" + tool.replace("-", "_").lower(), tool + "-22"))
config.substitutions.append(("%lld", os.path.join(bindir, "ld.lld")))
config.substitutions.append(("%python", "python3"))
# the simulator's runner (built from runtime/tools/flyc-sim.c when present)
sim = os.path.join(build, "bin", "flyc-sim")
if os.environ.get("FLY_SIM_BIN"):
    sim = os.environ["FLY_SIM_BIN"]
config.substitutions.insert(0, ("%flyc_sim", sim))
if os.access(sim, os.X_OK):
    config.available_features.add("flyc-sim")
# the sanitized build (run.sh passes --param san=1 when FLY_SAN=1): the compile-only tests
# whose compiles other tests already make under ASan/UBSan are UNSUPPORTED there, or skip
# those RUN lines with %if !san (docs/testing.md "What the sanitized build runs")
if lit_config.params.get("san") == "1":
    config.available_features.add("san")
config.environment["PATH"] = os.pathsep.join([bindir, "/usr/bin", "/bin"])
config.environment["LC_ALL"] = "C"
