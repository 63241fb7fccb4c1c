package io.elect.core.transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The TCP transport, on Netty (the 4.1 that ships with Cassandra; NIO event loops, so it runs wherever Cassandra
 * does). One listening socket; one outgoing connection per peer, opened on first use and reopened after a failure.
 * Connections are one-way: requests flow client -> server, responses back.
 *
 * <p>Any malformed frame (docs/formats/transport.md) is counted in {@link TransportMetrics#malformedFrames} and the
 * connection it came on is closed; the rest of the node is unaffected. A frame longer than the limit is rejected
 * from its length field, before it is buffered.
 *
 * <p>Security ({@link TransportSecurity}, docs/security.md): with TLS every connection is mutual TLS (the server
 * requires a client certificate chaining to the truststore); the client checks that the server's certificate names
 * the address it dialled (endpoint identification), the server that the client's certificate names the address the
 * connection comes from ({@link CertificateIdentity}). Every REQUEST is first put to the {@link CallerPolicy}: a
 * caller it does not admit (or whose certificate does not name its address) gets one ERROR, after which the
 * connection is closed and nothing more it sent is read; an admitted caller may still be refused a verb (an ERROR,
 * the connection stays). Outgoing connections are bound to this node's own address, so that peers see the
 * address gossip knows this node by (on a multi-address host the kernel would otherwise pick one).
 */
public final class NettyTransport extends AbstractTransport
{
    private static final Logger logger = LoggerFactory.getLogger(NettyTransport.class);
    private static final AttributeKey<Map<Long, CompletableFuture<byte[]>>> PENDING = AttributeKey.valueOf("elect.pending");
    private static final AttributeKey<Caller> CALLER = AttributeKey.valueOf("elect.caller");
    private static final AttributeKey<Boolean> REFUSED = AttributeKey.valueOf("elect.refused");
    /** A TLS handshake that has not finished by then fails (a silent client must not hold a connection forever). */
    static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel serverChannel;
    private final Peer local;
    private final Bootstrap client;
    private final Map<Peer, CompletableFuture<Channel>> connections = new ConcurrentHashMap<>();
    private final TransportSecurity security;
    private final InetAddress bindAddress;
    private final RateLimitedLog refusalLog = new RateLimitedLog(logger, 10_000);
    private final RateLimitedLog handshakeLog = new RateLimitedLog(logger, 10_000);

    /** Plaintext, every caller admitted: tests and tools. */
    public NettyTransport(String host, int port, TransportOptions options, PeerLiveness liveness)
    {
        this(host, port, options, liveness, TransportSecurity.PLAINTEXT_OPEN);
    }

    /**
     * Binds {@code host:port} (port 0: an ephemeral port, see {@link #localPeer}).
     *
     * @throws TransportException if the address cannot be bound
     */
    public NettyTransport(String host, int port, TransportOptions options, PeerLiveness liveness, TransportSecurity security)
    {
        super("elect-transport", options, liveness, security.policy());
        this.security = security;
        this.bindAddress = bindAddressOf(host);
        this.boss = new NioEventLoopGroup(1, new DefaultThreadFactory("elect-transport-accept", true));
        this.workers = new NioEventLoopGroup(2, new DefaultThreadFactory("elect-transport-io", true));
        ServerBootstrap sb = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                                                  .childOption(ChannelOption.TCP_NODELAY, true)
                                                  .childHandler(new ChannelInitializer<SocketChannel>()
                                                  {
                                                      @Override
                                                      protected void initChannel(SocketChannel ch)
                                                      {
                                                          if (security.tls())
                                                              ch.pipeline().addLast(serverTls(ch));
                                                          ch.pipeline().addLast(new FrameDecoder(options.maxFrameBytes(), metrics, logger), new ServerHandler());
                                                      }
                                                  });
        try
        {
            serverChannel = sb.bind(host, port).syncUninterruptibly().channel();
        }
        catch (Exception e)
        {
            shutdownGroups();
            throw new TransportException(TransportException.Reason.CONNECTION, "cannot bind " + host + ":" + port, e);
        }
        local = new Peer(host, ((InetSocketAddress) serverChannel.localAddress()).getPort());
        client = new Bootstrap().group(workers).channel(NioSocketChannel.class).option(ChannelOption.TCP_NODELAY, true)
                                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, options.requestTimeoutMillis()))
                                .handler(new ChannelInitializer<SocketChannel>()
                                {
                                    @Override
                                    protected void initChannel(SocketChannel ch)
                                    {
                                        throw new IllegalStateException("connections are made by connect(peer)");
                                    }
                                });
        logger.info("ELECT transport listening on {} (encryption {}, max frame {} bytes, timeout {} ms, {} retries)", local,
                    security.describe(), options.maxFrameBytes(), options.requestTimeoutMillis(), options.retries());
    }

    /** The security this transport runs with (for status reports). */
    public TransportSecurity security()
    {
        return security;
    }

    /**
     * The protocol and cipher suite of the open outgoing connection to {@code peer} ("plaintext" without TLS, "not
     * connected" without a connection): for status reports and benchmarks.
     */
    public String describeConnection(Peer peer)
    {
        CompletableFuture<Channel> c = connections.get(peer);
        if (c == null || !c.isDone() || c.isCompletedExceptionally() || !c.join().isActive())
            return "not connected";
        SslHandler ssl = c.join().pipeline().get(SslHandler.class);
        if (ssl == null)
            return "plaintext";
        javax.net.ssl.SSLSession s = ssl.engine().getSession();
        return s.getProtocol() + " " + s.getCipherSuite() + " (" + ssl.engine().getClass().getSimpleName() + ")";
    }

    private static InetAddress bindAddressOf(String host)
    {
        try
        {
            InetAddress a = InetAddress.getByName(host);
            return a.isAnyLocalAddress() ? null : a;
        }
        catch (java.net.UnknownHostException e)
        {
            throw new TransportException(TransportException.Reason.CONNECTION, "cannot resolve " + host, e);
        }
    }

    private SslHandler serverTls(SocketChannel ch)
    {
        SslHandler ssl = security.serverContext().newHandler(ch.alloc());
        ssl.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
        ssl.setWrapDataSize(FrameWriter.SLICE); // one output buffer of records per written slice
        ssl.handshakeFuture().addListener((Future<? super Channel> f) -> {
            if (!f.isSuccess())
            {
                metrics.tlsHandshakeFailures.incrementAndGet();
                handshakeLog.warn("ELECT transport: TLS handshake from {} failed: {}", ch.remoteAddress(), String.valueOf(f.cause()));
            }
        });
        return ssl;
    }

    /** A client-side TLS handler that verifies the server's certificate names {@code peer.host()}. */
    private SslHandler clientTls(SocketChannel ch, Peer peer)
    {
        SslHandler ssl = security.clientContext().newHandler(ch.alloc(), peer.host(), peer.port());
        ssl.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
        ssl.setWrapDataSize(FrameWriter.SLICE);
        SSLEngine engine = ssl.engine();
        SSLParameters params = engine.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        engine.setSSLParameters(params);
        return ssl;
    }

    private Bootstrap clientFor(Peer peer, ChannelInitializer<SocketChannel> rest)
    {
        Bootstrap b = client.clone().handler(new ChannelInitializer<SocketChannel>()
        {
            @Override
            protected void initChannel(SocketChannel ch)
            {
                if (security.tls())
                    ch.pipeline().addLast(clientTls(ch, peer));
                ch.pipeline().addLast(rest);
            }
        });
        if (bindAddress != null)
            b.localAddress(bindAddress, 0);
        return b;
    }

    @Override
    public Peer localPeer()
    {
        return local;
    }

    @Override
    public CompletableFuture<byte[]> requestOnce(Peer peer, int verb, byte[] payload, long timeoutMillis)
    {
        Outgoing out = startRequest(peer, verb, payload, timeoutMillis);
        long id = out.id();
        byte[] bytes = out.bytes();
        CompletableFuture<byte[]> result = out.result();
        if (result.isDone())
            return result;
        connection(peer).whenComplete((ch, e) -> {
            if (e != null)
            {
                result.completeExceptionally(new TransportException(TransportException.Reason.CONNECTION,
                                                                    "cannot connect to " + peer, Retrier.unwrap(e)));
                return;
            }
            Map<Long, CompletableFuture<byte[]>> pending = ch.attr(PENDING).get();
            pending.put(id, result);
            result.whenComplete((r, x) -> pending.remove(id));
            metrics.requestsSent.incrementAndGet();
            FrameWriter.write(ch, Unpooled.wrappedBuffer(bytes), f -> {
                if (!f.isSuccess())
                    result.completeExceptionally(new TransportException(TransportException.Reason.CONNECTION,
                                                                        "write to " + peer + " failed", f.cause()));
            });
            if (!ch.isActive())
                result.completeExceptionally(new TransportException(TransportException.Reason.CONNECTION, "connection to " + peer + " closed"));
        });
        return result;
    }

    private CompletableFuture<Channel> connection(Peer peer)
    {
        while (true)
        {
            CompletableFuture<Channel> cur = connections.get(peer);
            if (cur != null && (!cur.isDone() || (!cur.isCompletedExceptionally() && cur.join().isActive())))
                return cur;
            CompletableFuture<Channel> fresh = new CompletableFuture<>();
            boolean mine = cur == null ? connections.putIfAbsent(peer, fresh) == null : connections.replace(peer, cur, fresh);
            if (!mine)
                continue;
            clientFor(peer, new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(SocketChannel ch)
                {
                    ch.attr(PENDING).set(new ConcurrentHashMap<>());
                    ch.pipeline().addLast(new FrameDecoder(options.maxFrameBytes(), metrics, logger), new ClientHandler());
                }
            }).connect(peer.host(), peer.port()).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess())
                    fresh.completeExceptionally(f.cause());
                else if (!security.tls())
                    fresh.complete(f.channel());
                else
                    f.channel().pipeline().get(SslHandler.class).handshakeFuture().addListener((Future<? super Channel> h) -> {
                        if (h.isSuccess())
                        {
                            fresh.complete(f.channel());
                            return;
                        }
                        metrics.tlsHandshakeFailures.incrementAndGet();
                        handshakeLog.warn("ELECT transport: TLS handshake with {} failed: {}", peer, String.valueOf(h.cause()));
                        fresh.completeExceptionally(new javax.net.ssl.SSLException("TLS handshake with " + peer + " failed: " + h.cause(), h.cause()));
                        f.channel().close();
                    });
            });
            return fresh;
        }
    }

    @Override
    public void sendRawFrame(Peer peer, byte[] bytes)
    {
        ChannelFuture f = clientFor(peer, new ChannelInitializer<SocketChannel>()
        {
            @Override
            protected void initChannel(SocketChannel ch)
            {
            }
        }).connect(peer.host(), peer.port());
        f.addListener((ChannelFutureListener) c -> {
            if (c.isSuccess())
                c.channel().writeAndFlush(Unpooled.wrappedBuffer(bytes)).addListener(ChannelFutureListener.CLOSE);
        });
    }

    @Override
    public void close()
    {
        if (closed)
            return;
        closed = true;
        serverChannel.close().syncUninterruptibly();
        for (CompletableFuture<Channel> c : connections.values())
        {
            if (c.isDone() && !c.isCompletedExceptionally())
            {
                Channel ch = c.join();
                failPending(ch, new TransportException(TransportException.Reason.CLOSED, "transport closed"));
                ch.close();
            }
        }
        dispatcher.close();
        shutdownGroups();
        logger.info("ELECT transport on {} closed: {}", local, metrics);
    }

    private void shutdownGroups()
    {
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static void failPending(Channel ch, TransportException e)
    {
        Map<Long, CompletableFuture<byte[]>> pending = ch.attr(PENDING).get();
        if (pending != null)
            for (CompletableFuture<byte[]> f : List.copyOf(pending.values()))
                f.completeExceptionally(e);
    }

    private final class ServerHandler extends SimpleChannelInboundHandler<Frame>
    {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame f)
        {
            if (ctx.channel().attr(REFUSED).get() != null)
                return; // frames decoded in the same read as the refused one: never served
            if (f.kind() != Frame.Kind.REQUEST)
            {
                metrics.malformedFrames.incrementAndGet();
                logger.warn("ELECT transport: {} frame sent to a server by {}; closing the connection", f.kind(), ctx.channel().remoteAddress());
                ctx.close();
                return;
            }
            Channel ch = ctx.channel();
            Caller caller = callerOf(ch);
            String refusal = admission(caller);
            if (refusal != null)
            {
                ch.attr(REFUSED).set(Boolean.TRUE);
                metrics.refusedCallers.incrementAndGet();
                refusalLog.warn("ELECT transport: refused a request from {}: {}; closing the connection", caller, refusal);
                FrameWriter.write(ch, encodeReply(ch, Dispatcher.error(f, "refused: " + refusal)), ChannelFutureListener.CLOSE);
                return;
            }
            dispatcher.dispatch(f, caller, resp -> {
                if (ch.isActive())
                    FrameWriter.write(ch, encodeReply(ch, resp), null);
            });
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause)
        {
            logger.debug("ELECT transport: server connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }

    /** A reply in a direct buffer; one too large for the frame limit becomes an ERROR saying so (the caller must not wait). */
    private ByteBuf encodeReply(Channel ch, Frame reply)
    {
        try
        {
            return FrameWriter.encode(ch.alloc(), reply, options.maxFrameBytes());
        }
        catch (IllegalArgumentException e)
        {
            return FrameWriter.encode(ch.alloc(), Dispatcher.error(reply, "response too large: " + e.getMessage()), options.maxFrameBytes());
        }
    }

    /** The caller of a server connection, computed at its first request (after the TLS handshake) and kept. */
    private Caller callerOf(Channel ch)
    {
        Caller c = ch.attr(CALLER).get();
        if (c != null)
            return c;
        InetAddress address = ((InetSocketAddress) ch.remoteAddress()).getAddress();
        c = Caller.plaintext(address);
        SslHandler ssl = ch.pipeline().get(SslHandler.class);
        if (ssl != null)
        {
            try
            {
                Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
                X509Certificate leaf = (X509Certificate) chain[0];
                c = new Caller(address, leaf, CertificateIdentity.names(leaf, address));
            }
            catch (SSLPeerUnverifiedException | RuntimeException e)
            {
                c = Caller.plaintext(address); // cannot happen with client auth required; refused below
            }
        }
        ch.attr(CALLER).set(c);
        return c;
    }

    /** Null if the caller may send requests, else why not. */
    private String admission(Caller caller)
    {
        if (security.tls() && !caller.tls())
            return "no verified client certificate";
        if (security.tls() && !caller.identityVerified())
            return "the client certificate (" + caller.certificate().getSubjectX500Principal().getName() + ", subjectAltName "
                   + CertificateIdentity.describe(caller.certificate()) + ") does not name " + caller.address().getHostAddress();
        try
        {
            return security.policy().refuseCaller(caller);
        }
        catch (RuntimeException e)
        {
            return "access check failed: " + e;
        }
    }

    private final class ClientHandler extends SimpleChannelInboundHandler<Frame>
    {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame f)
        {
            if (f.kind() == Frame.Kind.REQUEST)
            {
                metrics.malformedFrames.incrementAndGet();
                logger.warn("ELECT transport: REQUEST frame on a client connection from {}; closing it", ctx.channel().remoteAddress());
                ctx.close();
                return;
            }
            CompletableFuture<byte[]> p = ctx.channel().attr(PENDING).get().remove(f.requestId());
            if (p == null)
                return; // timed out already: a late response is dropped
            if (f.kind() == Frame.Kind.RESPONSE)
            {
                metrics.responsesReceived.incrementAndGet();
                p.complete(f.payload());
            }
            else
            {
                metrics.remoteErrors.incrementAndGet();
                p.completeExceptionally(new TransportException(TransportException.Reason.REMOTE_ERROR,
                                                               new String(f.payload(), StandardCharsets.UTF_8)));
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx)
        {
            failPending(ctx.channel(), new TransportException(TransportException.Reason.CONNECTION,
                                                              "connection to " + ctx.channel().remoteAddress() + " closed"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause)
        {
            ctx.close();
        }
    }
}
