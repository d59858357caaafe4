package pdc.hadoopsecure;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.PrivilegedExceptionAction;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * A Kerberos-secured single-JVM Hadoop for pdc's tests: an in-process KDC (MiniKdc, realm
 * EXAMPLE.COM), a secured MiniDFSCluster (one NameNode, one DataNode, block access tokens,
 * SASL data transfer protection "authentication") and a secured MiniMRYarnCluster
 * (ResourceManager, one NodeManager, MapReduce job history server).
 *
 * <p>Usage: {@code SecureCluster WORKDIR} with system properties (set by
 * scripts/hadoop-secure-cluster.sh):
 * <ul>
 *   <li>pdc.ports: nn,nnhttp,rm,rmscheduler,rmtracker,rmadmin,rmweb,jhs,jhsadmin,jhsweb
 *   <li>pdc.siteconf: a directory on this JVM's classpath (it must exist before the JVM
 *       starts); core-site.xml and hdfs-site.xml with the security keys are written there
 *       first, because the NodeManager's in-process container localizer builds a fresh
 *       Configuration and would otherwise talk to the DataNode without SASL
 *   <li>pdc.jars: the jar dir (mapreduce.application.classpath of the client conf)
 *   <li>pdc.taskopts: JVM flags for the MR AM and task JVMs
 *   <li>pdc.blocksize, pdc.nmmb: HDFS block size, NodeManager memory
 * </ul>
 *
 * <p>Writes into WORKDIR: service.keytab (hdfs/localhost, HTTP/localhost), pdc.keytab (pdc),
 * krb5.conf, conf/ (the client configuration: HADOOP_CONF_DIR), ready (key=value lines,
 * last). Then blocks until the JVM is killed; a shutdown hook stops the services.
 */
public final class SecureCluster {
  static final String REALM = "EXAMPLE.COM";
  static final String SERVICE = "hdfs/localhost@" + REALM;
  static final String HTTP = "HTTP/localhost@" + REALM;
  static final String USER = "pdc@" + REALM;

  private SecureCluster() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: SecureCluster WORKDIR");
      System.exit(2);
    }
    long t0 = System.nanoTime();
    File w = new File(args[0]).getAbsoluteFile();
    String[] p = System.getProperty("pdc.ports", "9100,9970,8132,8130,8131,8133,8188,10120,10133,19988").split(",");
    int nnPort = Integer.parseInt(p[0]);
    String nnHttp = "localhost:" + p[1];
    String rm = "localhost:" + p[2], rmScheduler = "localhost:" + p[3], rmTracker = "localhost:" + p[4];
    String rmAdmin = "localhost:" + p[5], rmWeb = "localhost:" + p[6];
    String jhs = "localhost:" + p[7], jhsAdmin = "localhost:" + p[8], jhsWeb = "localhost:" + p[9];
    File siteDir = new File(System.getProperty("pdc.siteconf", new File(w, "site").getPath()));
    String jars = System.getProperty("pdc.jars", "");
    String blockSize = System.getProperty("pdc.blocksize", "134217728");
    String nmMB = System.getProperty("pdc.nmmb", "8192");
    // "authentication" (default): SASL on the DataNode's data transfer port, as a secured
    // cluster on unprivileged ports needs. "none": no SASL there (the DataNode accepts plain
    // connections because of ignore.secure.ports.for.testing); block access tokens are still
    // checked. See README.md (reducers).
    String protection = System.getProperty("pdc.dataprotection", "authentication");

    // 1. The KDC, first: it sets java.security.krb5.conf for this JVM before any Hadoop
    //    security class reads the default realm.
    File kdcDir = new File(w, "kdc");
    kdcDir.mkdirs();
    Properties kconf = MiniKdc.createConf();
    kconf.setProperty(MiniKdc.ORG_NAME, "EXAMPLE");
    kconf.setProperty(MiniKdc.ORG_DOMAIN, "COM");
    kconf.setProperty(MiniKdc.KDC_BIND_ADDRESS, "localhost");
    kconf.setProperty(MiniKdc.KDC_PORT, "0");
    final MiniKdc kdc = new MiniKdc(kconf, kdcDir);
    kdc.start();
    if (!REALM.equals(kdc.getRealm())) {
      throw new IllegalStateException("KDC realm " + kdc.getRealm() + ", want " + REALM);
    }
    File serviceKeytab = new File(w, "service.keytab");
    File userKeytab = new File(w, "pdc.keytab");
    serviceKeytab.delete();
    userKeytab.delete();
    kdc.createPrincipal(serviceKeytab, "hdfs/localhost", "HTTP/localhost");
    kdc.createPrincipal(userKeytab, "pdc");
    File krb5 = new File(w, "krb5.conf");
    writeKrb5Conf(krb5, kdc.getPort());
    log("KDC on localhost:%d (%.1fs)", kdc.getPort(), secs(t0));

    // 2. The security keys, as core-site.xml and hdfs-site.xml on the classpath (see above)
    //    and in the Configuration of every daemon.
    String keytab = serviceKeytab.getPath();
    Map<String, String> core = new LinkedHashMap<>();
    core.put("fs.defaultFS", "hdfs://localhost:" + nnPort);
    core.put("hadoop.security.authentication", "kerberos");
    core.put("hadoop.security.authorization", "true");
    core.put("hadoop.rpc.protection", "authentication");
    core.put("hadoop.security.auth_to_local", authToLocal());
    // Group lookups without OS accounts for pdc and hdfs.
    core.put("hadoop.user.group.static.mapping.overrides", "pdc=pdc;hdfs=supergroup;dr.who=;");
    Map<String, String> hdfs = new LinkedHashMap<>();
    hdfs.put("dfs.replication", "1");
    hdfs.put("dfs.blocksize", blockSize);
    long bs = Long.parseLong(blockSize);
    hdfs.put("dfs.namenode.fs-limits.min-block-size", Long.toString(Math.min(bs, 1048576)));
    hdfs.put("dfs.safemode.extension", "0");
    hdfs.put("dfs.block.access.token.enable", "true");
    if (!"none".equals(protection)) {
      hdfs.put("dfs.data.transfer.protection", protection);
    }
    hdfs.put("dfs.http.policy", "HTTP_ONLY");
    hdfs.put("ignore.secure.ports.for.testing", "true");
    hdfs.put("dfs.namenode.kerberos.principal", SERVICE);
    hdfs.put("dfs.namenode.keytab.file", keytab);
    hdfs.put("dfs.datanode.kerberos.principal", SERVICE);
    hdfs.put("dfs.datanode.keytab.file", keytab);
    hdfs.put("dfs.web.authentication.kerberos.principal", HTTP);
    hdfs.put("dfs.web.authentication.kerberos.keytab", keytab);
    hdfs.put("dfs.namenode.kerberos.internal.spnego.principal", HTTP);
    hdfs.put("dfs.namenode.http-address", nnHttp);
    siteDir.mkdirs();
    writeXml(new File(siteDir, "core-site.xml"), core);
    writeXml(new File(siteDir, "hdfs-site.xml"), hdfs);

    Configuration conf = new Configuration(); // loads the two files just written
    if (!"kerberos".equals(conf.get("hadoop.security.authentication"))) {
      throw new IllegalStateException(siteDir + " is not on the classpath");
    }
    putAll(conf, core);
    putAll(conf, hdfs);
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation.loginUserFromKeytab(SERVICE, keytab);

    // 3. HDFS.
    File data = new File(w, "data");
    conf.set("hdfs.minidfs.basedir", new File(data, "dfs").getPath());
    final MiniDFSCluster dfs = new MiniDFSCluster.Builder(conf, new File(data, "dfs"))
        .nameNodePort(nnPort)
        .nameNodeHttpPort(Integer.parseInt(p[1]))
        .numDataNodes(1)
        .format(true)
        .build();
    dfs.waitActive();
    FileSystem fs = dfs.getFileSystem();
    mkdir(fs, "/tmp", (short) 01777, null);
    mkdir(fs, "/user", (short) 0755, null);
    mkdir(fs, "/user/pdc", (short) 0755, "pdc");
    log("HDFS up at hdfs://localhost:%d (%.1fs)", nnPort, secs(t0));

    // 4. YARN + MapReduce (+ job history server), same principal for every daemon: the login
    //    user of the JVM is global.
    Configuration yc = new Configuration(conf);
    String taskOpts = System.getProperty("pdc.taskopts", "-Xmx400m") + " -Djava.security.krb5.conf=" + krb5.getPath();
    Map<String, String> yarn = new LinkedHashMap<>();
    yarn.put("yarn.resourcemanager.principal", SERVICE);
    yarn.put("yarn.resourcemanager.keytab", keytab);
    yarn.put("yarn.nodemanager.principal", SERVICE);
    yarn.put("yarn.nodemanager.keytab", keytab);
    yarn.put("yarn.resourcemanager.webapp.spnego-principal", HTTP);
    yarn.put("yarn.resourcemanager.webapp.spnego-keytab-file", keytab);
    yarn.put("yarn.nodemanager.webapp.spnego-principal", HTTP);
    yarn.put("yarn.nodemanager.webapp.spnego-keytab-file", keytab);
    yarn.put("yarn.minicluster.fixed.ports", "true");
    yarn.put("yarn.resourcemanager.hostname", "localhost");
    yarn.put("yarn.resourcemanager.address", rm);
    yarn.put("yarn.resourcemanager.scheduler.address", rmScheduler);
    yarn.put("yarn.resourcemanager.resource-tracker.address", rmTracker);
    yarn.put("yarn.resourcemanager.admin.address", rmAdmin);
    yarn.put("yarn.resourcemanager.webapp.address", rmWeb);
    yarn.put("yarn.nodemanager.hostname", "localhost");
    yarn.put("yarn.nodemanager.address", "localhost:0");
    yarn.put("yarn.nodemanager.localizer.address", "localhost:0");
    yarn.put("yarn.nodemanager.webapp.address", "localhost:0");
    yarn.put("yarn.nodemanager.collector-service.address", "localhost:0");
    yarn.put("yarn.nodemanager.vmem-check-enabled", "false");
    yarn.put("yarn.minicluster.yarn.nodemanager.resource.memory-mb", nmMB);
    yarn.put("yarn.nodemanager.resource.memory-mb", nmMB);
    yarn.put("yarn.scheduler.minimum-allocation-mb", "256");
    yarn.put("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
    // Off: the NodeManager's log aggregation opens container logs through SecureIOUtils,
    // which needs libhadoop.so in secure mode ("Secure IO is not possible without native code
    // extensions"). Container logs stay under target/ (the "logs" line of the ready file).
    yarn.put("yarn.log-aggregation-enable", "false");
    yarn.put("yarn.is.minicluster", "true");
    Map<String, String> mapred = new LinkedHashMap<>();
    mapred.put("mapreduce.framework.name", "yarn");
    mapred.put("mapreduce.jobhistory.principal", SERVICE);
    mapred.put("mapreduce.jobhistory.keytab", keytab);
    mapred.put("mapreduce.jobhistory.webapp.spnego-principal", HTTP);
    mapred.put("mapreduce.jobhistory.webapp.spnego-keytab-file", keytab);
    mapred.put("mapreduce.jobhistory.minicluster.fixed.ports", "true");
    mapred.put("mapreduce.jobhistory.address", jhs);
    mapred.put("mapreduce.jobhistory.admin.address", jhsAdmin);
    mapred.put("mapreduce.jobhistory.webapp.address", jhsWeb);
    // Not the default /tmp/hadoop-yarn/staging: MiniMRYarnCluster replaces that with a local
    // test path; this one it creates on HDFS with mode 777 (and history/done under it).
    mapred.put("yarn.app.mapreduce.am.staging-dir", "/tmp/hadoop-yarn/secure-staging");
    mapred.put("yarn.app.mapreduce.am.resource.mb", "512");
    mapred.put("mapreduce.map.memory.mb", "512");
    mapred.put("mapreduce.reduce.memory.mb", "512");
    mapred.put("yarn.app.mapreduce.am.command-opts", taskOpts);
    mapred.put("mapreduce.map.java.opts", taskOpts);
    mapred.put("mapreduce.reduce.java.opts", taskOpts);
    putAll(yc, yarn);
    putAll(yc, mapred);
    final MiniMRYarnCluster mr = new MiniMRYarnCluster("pdc-secure", 1);
    mr.init(yc);
    mr.start();
    if (!mr.waitForNodeManagersToConnect(120_000)) {
      throw new IllegalStateException("no NodeManager registered with the ResourceManager in 120s");
    }
    Configuration eff = mr.getConfig();
    log("YARN up: RM %s, JHS %s (%.1fs)", eff.get("yarn.resourcemanager.address"),
        eff.get("mapreduce.jobhistory.address"), secs(t0));

    // On SIGTERM: stop each part for at most a few seconds (the data is deleted anyway; a
    // graceful NodeManager stop waits 15-20 s for finished applications whose logs it keeps).
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      log("stopping");
      bounded("yarn", 4, mr::stop);
      bounded("hdfs", 4, dfs::shutdown);
      bounded("kdc", 2, kdc::stop);
    }, "pdc-secure-stop"));

    // 5. The client configuration (HADOOP_CONF_DIR): small, for Java tools and colinmarc/hdfs.
    File cdir = new File(w, "conf");
    cdir.mkdirs();
    Map<String, String> ccore = new LinkedHashMap<>();
    for (String k : new String[] {"fs.defaultFS", "hadoop.security.authentication",
        "hadoop.rpc.protection", "hadoop.security.auth_to_local"}) {
      ccore.put(k, core.get(k));
    }
    writeXml(new File(cdir, "core-site.xml"), ccore);
    Map<String, String> chdfs = new LinkedHashMap<>();
    for (String k : new String[] {"dfs.replication", "dfs.blocksize", "dfs.block.access.token.enable",
        "dfs.data.transfer.protection", "dfs.namenode.kerberos.principal",
        "dfs.datanode.kerberos.principal", "dfs.http.policy"}) {
      if (hdfs.containsKey(k)) {
        chdfs.put(k, hdfs.get(k));
      }
    }
    writeXml(new File(cdir, "hdfs-site.xml"), chdfs);
    Map<String, String> cyarn = new LinkedHashMap<>();
    for (String k : new String[] {"yarn.resourcemanager.hostname", "yarn.resourcemanager.address",
        "yarn.resourcemanager.scheduler.address", "yarn.resourcemanager.webapp.address",
        "yarn.resourcemanager.principal", "yarn.nodemanager.principal"}) {
      cyarn.put(k, eff.get(k));
    }
    writeXml(new File(cdir, "yarn-site.xml"), cyarn);
    Map<String, String> cmapred = new LinkedHashMap<>();
    cmapred.put("mapreduce.framework.name", "yarn");
    cmapred.put("mapreduce.application.classpath", jars.isEmpty() ? "" : jars + "/*");
    for (String k : new String[] {"mapreduce.jobhistory.address", "mapreduce.jobhistory.webapp.address",
        "mapreduce.jobhistory.principal", "yarn.app.mapreduce.am.staging-dir",
        "yarn.app.mapreduce.am.command-opts", "mapreduce.map.java.opts", "mapreduce.reduce.java.opts"}) {
      cmapred.put(k, eff.get(k));
    }
    writeXml(new File(cdir, "mapred-site.xml"), cmapred);

    // 6. Smoke test as the user pdc from its keytab, then the ready marker.
    UserGroupInformation pdc = UserGroupInformation.loginUserFromKeytabAndReturnUGI(USER, userKeytab.getPath());
    final Configuration uc = new Configuration(conf);
    String home = pdc.doAs((PrivilegedExceptionAction<String>) () -> {
      try (FileSystem ufs = FileSystem.newInstance(uc)) {
        return ufs.getFileStatus(ufs.getHomeDirectory()).getOwner();
      }
    });
    if (!"pdc".equals(home)) {
      throw new IllegalStateException("/user/pdc is owned by " + home);
    }

    Map<String, String> ready = new LinkedHashMap<>();
    ready.put("namenode", "localhost:" + nnPort);
    ready.put("namenode_http", eff.get("dfs.namenode.http-address"));
    ready.put("kdc", "localhost:" + kdc.getPort());
    ready.put("realm", REALM);
    ready.put("resourcemanager", eff.get("yarn.resourcemanager.address"));
    ready.put("resourcemanager_web", eff.get("yarn.resourcemanager.webapp.address"));
    ready.put("jobhistory", eff.get("mapreduce.jobhistory.address"));
    ready.put("jobhistory_web", eff.get("mapreduce.jobhistory.webapp.address"));
    ready.put("datanode", "localhost:" + dfs.getDataNodes().get(0).getXferPort());
    ready.put("data_transfer_protection", protection);
    ready.put("logs", mr.getTestWorkDir().getPath());
    ready.put("seconds", String.format("%.1f", secs(t0)));
    StringBuilder sb = new StringBuilder();
    ready.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    Path tmp = new File(w, "ready.tmp").toPath();
    Files.write(tmp, sb.toString().getBytes(StandardCharsets.UTF_8));
    Files.move(tmp, new File(w, "ready").toPath(), StandardCopyOption.ATOMIC_MOVE);
    log("ready in %.1fs", secs(t0));

    Thread.currentThread().join(); // until killed
  }

  // bounded runs r in a daemon thread and waits at most secs for it.
  static void bounded(String what, int secs, Runnable r) {
    Thread t = new Thread(() -> {
      try {
        r.run();
      } catch (Throwable e) {
        log("%s stop: %s", what, e);
      }
    }, "pdc-secure-stop-" + what);
    t.setDaemon(true);
    t.start();
    try {
      t.join(secs * 1000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      log("%s still stopping after %ds; going on", what, secs);
    }
  }

  static String authToLocal() {
    String r = REALM.replace(".", "\\.");
    return "RULE:[1:$1@$0](.*@" + r + ")s/@.*//\n"
        + "RULE:[2:$1@$0](.*@" + r + ")s/@.*//\n"
        + "DEFAULT";
  }

  // krb5.conf for MIT tools, gokrb5 and Java clients: TCP (the KDC listens on TCP only),
  // no DNS, AES enctypes (MiniKdc's keytabs carry aes128-cts-hmac-sha1-96).
  static void writeKrb5Conf(File f, int port) throws IOException {
    String s = "[libdefaults]\n"
        + "  default_realm = " + REALM + "\n"
        + "  udp_preference_limit = 1\n"
        + "  dns_lookup_kdc = false\n"
        + "  dns_lookup_realm = false\n"
        + "  rdns = false\n"
        + "  dns_canonicalize_hostname = false\n"
        + "  ticket_lifetime = 24h\n"
        + "  forwardable = true\n"
        + "  default_tkt_enctypes = aes128-cts-hmac-sha1-96 aes256-cts-hmac-sha1-96\n"
        + "  default_tgs_enctypes = aes128-cts-hmac-sha1-96 aes256-cts-hmac-sha1-96\n"
        + "  permitted_enctypes = aes128-cts-hmac-sha1-96 aes256-cts-hmac-sha1-96\n"
        + "\n[realms]\n"
        + "  " + REALM + " = {\n"
        + "    kdc = localhost:" + port + "\n"
        + "  }\n"
        + "\n[domain_realm]\n"
        + "  localhost = " + REALM + "\n";
    Files.write(f.toPath(), s.getBytes(StandardCharsets.UTF_8));
  }

  static void putAll(Configuration c, Map<String, String> m) {
    m.forEach(c::set);
  }

  static void mkdir(FileSystem fs, String dir, short perm, String owner) throws IOException {
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(dir);
    fs.mkdirs(p);
    fs.setPermission(p, new FsPermission(perm));
    if (owner != null) {
      fs.setOwner(p, owner, owner);
    }
  }

  static void writeXml(File f, Map<String, String> props) throws IOException {
    File tmp = new File(f.getPath() + ".tmp");
    try (PrintWriter pw = new PrintWriter(tmp, StandardCharsets.UTF_8)) {
      pw.println("<?xml version=\"1.0\"?>");
      pw.println("<configuration>");
      for (Map.Entry<String, String> e : props.entrySet()) {
        pw.println("  <property><name>" + esc(e.getKey()) + "</name><value>" + esc(e.getValue())
            + "</value></property>");
      }
      pw.println("</configuration>");
    }
    Files.move(tmp.toPath(), f.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  static String esc(String s) {
    return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  static double secs(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  static void log(String fmt, Object... args) {
    System.err.println("pdc-secure: " + String.format(fmt, args));
  }
}
