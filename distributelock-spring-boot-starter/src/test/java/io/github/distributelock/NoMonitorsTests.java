package io.github.distributelock;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.Test;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No class of the starter takes a monitor ({@code synchronized} methods or blocks): on
 * Java 21 to 23 a virtual thread that blocks while it holds one pins its carrier, and the
 * starter's waits and store calls all block. Read from the compiled classes, as the
 * pinning the virtual-thread contract tests record on JDK 25 no longer shows it.
 */
class NoMonitorsTests {

	@Test
	void noClassOfTheStarterTakesAMonitor() throws IOException {
		String root = DefaultDistributeLock.class.getProtectionDomain().getCodeSource().getLocation().toString();
		Resource[] classes = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/distributelock/**/*.class");
		List<String> scanned = new ArrayList<>();
		List<String> monitors = new ArrayList<>();
		for (Resource resource : classes) {
			if (!resource.getURL().toString().startsWith(root)) {
				continue;
			}
			try (InputStream content = resource.getInputStream()) {
				ClassReader reader = new ClassReader(content);
				scanned.add(reader.getClassName());
				reader.accept(new MonitorFinder(reader.getClassName(), monitors), ClassReader.SKIP_DEBUG);
			}
		}
		assertThat(scanned).contains("io/github/distributelock/core/DefaultDistributeLock",
				"io/github/distributelock/redis/RedisLockBackend", "io/github/distributelock/jdbc/JdbcLockBackend",
				"io/github/distributelock/zookeeper/ZooKeeperLockBackend");
		assertThat(scanned).noneMatch((name) -> name.endsWith("Tests"));
		assertThat(monitors).as("methods that take a monitor").isEmpty();
	}

	private static final class MonitorFinder extends ClassVisitor {

		private final String className;

		private final List<String> monitors;

		MonitorFinder(String className, List<String> monitors) {
			super(Opcodes.ASM9);
			this.className = className;
			this.monitors = monitors;
		}

		@Override
		public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
				String[] exceptions) {
			String method = this.className.replace('/', '.') + "." + name + descriptor;
			if ((access & Opcodes.ACC_SYNCHRONIZED) != 0) {
				this.monitors.add(method + " is synchronized");
			}
			return new MethodVisitor(Opcodes.ASM9) {

				@Override
				public void visitInsn(int opcode) {
					if (opcode == Opcodes.MONITORENTER) {
						MonitorFinder.this.monitors.add(method + " has a synchronized block");
					}
				}

			};
		}

	}

}
