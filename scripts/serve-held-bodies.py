import socket, time, sys, select
port=int(sys.argv[1]); n=int(sys.argv[2]); size=int(sys.argv[3]); pid=int(sys.argv[4])
def rss():
    for l in open(f'/proc/{pid}/status'):
        if l.startswith('VmRSS'): return int(l.split()[1])//1024
print('rss0', rss())
socks=[]; peak=0
chunk=b'a'*65536
for i in range(n):
    s=socket.create_connection(('127.0.0.1',port))
    s.sendall(f'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {size+10}\r\n\r\n'.encode())
    s.sendall(b'"'); sent=1
    try:
        while sent<size: c=chunk[:min(len(chunk),size-sent)]; s.sendall(c); sent+=len(c)
    except OSError: pass
    socks.append(s); peak=max(peak,rss())
    if i%10==9: print(i+1, 'conns, rss', rss(), flush=True)
time.sleep(2); print('hold rss', rss(), 'peak', peak)
r,_,_=select.select(socks,[],[],0.5); print('sockets with data', len(r), [x.recv(200)[:60] for x in r[:2]])
for s in socks: s.close()
time.sleep(3); print('after close rss', rss())
