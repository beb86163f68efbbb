package io.github.distributelock.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks the variant of a backend's contract whose callers run on virtual threads
 * ({@link AbstractLockBackendContractTests}): the build runs it, by its tag, in a
 * surefire execution of its own on the Java 21+ JDK of the Maven toolchain that matches
 * the {@code virtual-threads.jdk} property, and no virtual thread may be pinned to its
 * carrier while it runs.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("virtual-threads")
@ExtendWith(NoPinnedVirtualThreadsExtension.class)
public @interface VirtualThreadContract {

}
