"""Press Tab in a real interactive bash, as a user would, and report what completion did.

Usage: bash-tab.py COMPLETION_SCRIPT LINE
Prints JSON: {"offered": [COMPREPLY...], "line": the command line after one Tab}.
"""
import json, os, pty, select, sys, tempfile, time

script, line = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
offered, after = os.path.join(tmp, 'offered'), os.path.join(tmp, 'line')
rc = os.path.join(tmp, 'rc')
with open(rc, 'w') as f:
    f.write(f"""PS1='$ '
source {json.dumps(script)}
_bridge_probe() {{ _bridge "$@"; printf '%s\\n' "${{COMPREPLY[@]}}" > {json.dumps(offered)}; }}
complete -F _bridge_probe bridge
bind -x '"\\C-x": printf "%s" "$READLINE_LINE" > {json.dumps(after)}'
""")

pid, fd = pty.fork()
if pid == 0:
    os.environ['INPUTRC'] = '/dev/null'
    os.execvp('bash', ['bash', '--noprofile', '--rcfile', rc, '-i'])


def drain(seconds):
    end = time.time() + seconds
    while time.time() < end:
        if select.select([fd], [], [], 0.05)[0]:
            try:
                os.read(fd, 65536)
            except OSError:
                return


def wait_for(path, seconds=5):
    end = time.time() + seconds
    while time.time() < end and not os.path.exists(path):
        drain(0.05)


drain(0.3)
os.write(fd, line.encode() + b'\t')
wait_for(offered)
drain(0.2)
os.write(fd, b'\x18')
wait_for(after)
drain(0.1)
os.kill(pid, 9)
os.waitpid(pid, 0)
read = lambda p: open(p).read() if os.path.exists(p) else ''
print(json.dumps({'offered': [x for x in read(offered).split('\n') if x], 'line': read(after)}))
