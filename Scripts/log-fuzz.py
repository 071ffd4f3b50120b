"""Hostile logs for `syncsim trace` (issue 77): the real-log corpus mutated (bytes flipped, cut,
repeated, escapes, numbers past 64 bits, undecodable bytes), each read in two ways; every run must
exit 0 or 65 and print no raw escape. Usage: log-fuzz.py [SEED] [CASES] [BINARY]."""
import os, random, shutil, subprocess, sys, glob, tempfile
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
cases = int(sys.argv[2]) if len(sys.argv) > 2 else 200
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else os.path.join(root, '.build/release/syncsim')
files = sorted(glob.glob(os.path.join(root, 'Tests/SimCLITests/Fixtures/real-logs/*.log'))) + [os.path.join(root, 'Tests/SimCLITests/Fixtures/tn3163-iphone.log')]
work = tempfile.mkdtemp()
bad = 0
codes = {}
for case in range(cases):
    data = bytearray(open(rng.choice(files), 'rb').read())
    for _ in range(rng.randint(1, 8)):
        op = rng.randint(0, 6)
        if not data: break
        i = rng.randrange(len(data))
        if op == 0: data[i] = rng.randrange(256)
        elif op == 1: data[i:i] = rng.choice([b'\n', b'\t', b'{', b'}', b'"', b'\xff', b'\x00', b'1e300', b'-', b'Code=99999999999999999999', b'(7/2061)', b'Retry after 1e309 seconds', b'success: 0', b'<CKError 0x1: "X" (', b'\x1b]0;t\x07'])
        elif op == 2: del data[i:i + rng.randint(1, 50)]
        elif op == 3: data += data[i:i + rng.randint(1, 400)] * rng.randint(1, 5)
        elif op == 4: data = data[:i]
        elif op == 5: data[i:i] = b'\n' * rng.randint(1, 3)
        else: data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
    path = os.path.join(work, 'c.log')
    open(path, 'wb').write(data)
    for args in (['trace', path, '--out', os.path.join(work, 'out')], ['trace', path, '--date', '2026-01-02', '--utc-offset', '+0100', '--out', os.path.join(work, 'out2')]):
        r = subprocess.run([binary] + args, capture_output=True, timeout=60)
        codes[r.returncode] = codes.get(r.returncode, 0) + 1
        if r.returncode not in (0, 65) or b'\x1b' in r.stdout or b'\x1b' in r.stderr:
            bad += 1
            print('BAD', case, r.returncode, r.stderr[-300:])
            open(os.path.join(work, 'bad-%d.log' % case), 'wb').write(data)
print('log-fuzz: %d cases, exit codes %s, %d failing%s' % (cases, dict(sorted(codes.items())), bad, (' (kept in ' + work + ')') if bad else ''))
if not bad:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if bad else 0)
