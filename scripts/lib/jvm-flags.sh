# Sourced by the scripts that start Sluice's JVMs without `java -jar engine.jar` (whose manifest carries these):
# the flags Agrona and Chronicle need on Java 17, the same list as the parent pom's sluice.jvm.flags.
# shellcheck shell=bash
SLUICE_JVM_FLAGS="--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED \
--add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED \
--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED \
--add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
--add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
-Dchronicle.analytics.disable=true"
