package io.github.distributelock.jdbc;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * A test run once on each database of {@link JdbcTestDatabase#DIALECTS}, given as its
 * {@link JdbcTestDatabase} parameter: the databases the whole test run shares
 * ({@link JdbcTestDatabaseExtension}), those not started yet started in parallel, and not
 * closed after the test.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ParameterizedTest(name = "{0}", autoCloseArguments = false)
@ArgumentsSource(JdbcTestDatabaseExtension.EachDatabase.class)
@interface OnEachDatabase {

}
