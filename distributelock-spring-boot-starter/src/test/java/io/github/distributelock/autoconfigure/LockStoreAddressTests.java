package io.github.distributelock.autoconfigure;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC URL in messages keeps where the database is and drops what may hold
 * credentials.
 */
class LockStoreAddressTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			jdbc:postgresql://db:5432/app?user=app&password=secret | jdbc:postgresql://db:5432/app
			jdbc:postgresql://db1:5432,db2:5432/app                | jdbc:postgresql://db1:5432,db2:5432/app
			jdbc:mysql://app:secret@db:3306/app                    | jdbc:mysql://db:3306/app
			jdbc:mysql://app:se;cret@db:3306/app                   | jdbc:mysql://db:3306/app
			jdbc:mysql://app:se;cr=t@db:3306/app?useSSL=true       | jdbc:mysql://db:3306/app
			jdbc:mysql:replication://app:s;c@db1,db2/app           | jdbc:mysql:replication://db1,db2/app
			jdbc:mariadb://db/app?password=secret                  | jdbc:mariadb://db/app
			jdbc:h2:tcp://127.0.0.1:9092/mem:locks;PASSWORD=secret | jdbc:h2:tcp://127.0.0.1:9092/mem:locks
			jdbc:sqlserver://db:1433;databaseName=app;password=sec | jdbc:sqlserver://db:1433
			jdbc:oracle:thin:app/secret@db:1521:orcl               | jdbc:oracle:thin:@db:1521:orcl
			jdbc:oracle:thin:@//db:1521/app                        | jdbc:oracle:thin:@//db:1521/app
			""")
	void jdbcUrlLosesItsCredentials(String url, String address) {
		assertThat(LockStoreAddress.withoutCredentials(url)).isEqualTo(address);
	}

	// Connector/J's host specifications, where no ?, ; or @ marks the credentials.
	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			jdbc:mysql://address=(host=db)(user=a)(password=s)/x | jdbc:mysql://address=(host=db)/x
			jdbc:mysql://(host=db,port=3306,user=a,password=s)/x | jdbc:mysql://(host=db,port=3306)/x
			jdbc:mysql://(user=a,Password=s,host=db),db2:3306/x  | jdbc:mysql://(host=db),db2:3306/x
			jdbc:mysql://address=(host=db)(password=s@c?r;t)/x   | jdbc:mysql://address=(host=db)/x
			""")
	void mysqlHostSpecificationLosesItsCredentials(String url, String address) {
		assertThat(LockStoreAddress.withoutCredentials(url)).isEqualTo(address);
	}

}
