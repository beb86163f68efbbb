import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipInputStream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks that a release deployment has what Maven Central requires, without uploading it.
 * <p>
 * Usage: {@code java .ci/CheckReleaseBundle.java <repository directory or Central bundle .zip> <groupId:artifactId>...}.
 * The deployment must hold exactly the components named: for each, one POM, and for a jar also the jar, the
 * {@code -sources} and {@code -javadoc} jars (not empty), each file with its {@code .asc} signature and {@code .md5}
 * and {@code .sha1} checksums that match; each POM must give, itself or through a parent in the deployment, the name,
 * description, URL, licences, developers and SCM that Central requires. The starter must keep every dependency but
 * {@link #STARTER_MANDATORY} optional. Prints one line per problem and exits with 1 if there is any.
 */
public class CheckReleaseBundle {

	/** What an application always gets with the starter; the store clients and the rest stay optional. */
	static final Set<String> STARTER_MANDATORY = Set.of("org.springframework.boot:spring-boot-autoconfigure",
			"org.jspecify:jspecify");

	static final String STARTER = "io.github.distributelock:distributelock-spring-boot-starter";

	final List<String> problems = new ArrayList<>();

	final Map<String, Element> poms = new TreeMap<>();

	public static void main(String[] args) throws Exception {
		if (args.length < 2) {
			System.err.println("usage: java CheckReleaseBundle.java <repository directory or bundle .zip> "
					+ "<groupId:artifactId>...");
			System.exit(2);
		}
		Path input = Path.of(args[0]).toAbsolutePath();
		boolean bundle = input.toString().endsWith(".zip");
		try (FileSystem zip = bundle ? FileSystems.newFileSystem(URI.create("jar:" + input.toUri()), Map.of()) : null) {
			Path root = bundle ? zip.getPath("/") : input;
			CheckReleaseBundle check = new CheckReleaseBundle();
			check.check(root, bundle, List.of(args).subList(1, args.length));
			if (!check.problems.isEmpty()) {
				check.problems.forEach((problem) -> System.out.println("FAIL " + problem));
				System.out.println(check.problems.size() + " problem(s) in " + input);
				System.exit(1);
			}
			System.out.println("OK " + input + ": " + check.poms.keySet());
		}
	}

	void check(Path root, boolean bundle, List<String> expected) throws Exception {
		Map<String, Path> components = new TreeMap<>();
		try (Stream<Path> files = Files.walk(root)) {
			List<Path> pomFiles = files
				.filter((file) -> file.getFileName() != null && file.getFileName().toString().endsWith(".pom"))
				.toList();
			for (Path pom : pomFiles) {
				Path versionDir = pom.getParent();
				String key = root.relativize(versionDir.getParent().getParent()).toString().replace('/', '.') + ":"
						+ versionDir.getParent().getFileName();
				if (components.put(key, pom) != null) {
					this.problems.add(key + ": more than one POM in " + versionDir + "; deploy into an empty directory");
				}
				this.poms.put(key, parse(pom));
			}
		}
		for (String name : expected) {
			if (!components.containsKey(name)) {
				this.problems.add(name + ": not deployed");
			}
		}
		for (String name : components.keySet()) {
			if (!expected.contains(name)) {
				this.problems.add(name + ": deployed, but it is not one of the published artifacts " + expected);
			}
		}
		components.forEach((name, pom) -> {
			try {
				checkComponent(name, pom, bundle);
			}
			catch (Exception ex) {
				this.problems.add(name + ": " + ex);
			}
		});
	}

	void checkComponent(String name, Path pomFile, boolean bundle) throws Exception {
		Element pom = this.poms.get(name);
		String version = (text(pom, "version") != null) ? text(pom, "version") : text(child(pom, "parent"), "version");
		if (bundle && version != null && version.endsWith("-SNAPSHOT")) {
			this.problems.add(name + ": version " + version + " is a snapshot, which Central does not take in a bundle");
		}
		String base = pomFile.getFileName().toString().replaceFirst("\\.pom$", "");
		List<String> files = new ArrayList<>(List.of(base + ".pom"));
		String packaging = (text(pom, "packaging") != null) ? text(pom, "packaging") : "jar";
		if (packaging.equals("jar")) {
			files.addAll(List.of(base + ".jar", base + "-sources.jar", base + "-javadoc.jar"));
		}
		for (String file : files) {
			checkFile(name, pomFile.resolveSibling(file));
		}
		if (packaging.equals("jar")) {
			checkJar(name, pomFile.resolveSibling(base + ".jar"), ".class");
			checkJar(name, pomFile.resolveSibling(base + "-sources.jar"), ".java");
			checkJar(name, pomFile.resolveSibling(base + "-javadoc.jar"), "index.html");
		}
		checkMetadata(name, pom);
		if (name.equals(STARTER)) {
			checkOptionalDependencies(name, pom);
		}
	}

	void checkFile(String name, Path file) throws Exception {
		if (!Files.isRegularFile(file)) {
			this.problems.add(name + ": " + file.getFileName() + " is missing");
			return;
		}
		byte[] content = Files.readAllBytes(file);
		for (String[] checksum : new String[][] { { "md5", "MD5" }, { "sha1", "SHA-1" } }) {
			Path sum = file.resolveSibling(file.getFileName() + "." + checksum[0]);
			if (!Files.isRegularFile(sum)) {
				this.problems.add(name + ": " + sum.getFileName() + " is missing");
				continue;
			}
			String expected = HexFormat.of().formatHex(MessageDigest.getInstance(checksum[1]).digest(content));
			String actual = Files.readString(sum).trim().split("\\s+")[0];
			if (!expected.equalsIgnoreCase(actual)) {
				this.problems.add(name + ": " + sum.getFileName() + " says " + actual + ", the file's is " + expected);
			}
		}
		Path signature = file.resolveSibling(file.getFileName() + ".asc");
		if (!Files.isRegularFile(signature)) {
			this.problems.add(name + ": " + signature.getFileName() + " is missing (-Prelease signs with a GnuPG key)");
		}
		else if (!Files.readString(signature).startsWith("-----BEGIN PGP SIGNATURE-----")) {
			this.problems.add(name + ": " + signature.getFileName() + " is not an ASCII-armored signature");
		}
	}

	void checkJar(String name, Path jar, String expectedEntry) throws IOException {
		if (!Files.isRegularFile(jar)) {
			return;
		}
		try (InputStream in = Files.newInputStream(jar); ZipInputStream zip = new ZipInputStream(in)) {
			for (var entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
				if (entry.getName().endsWith(expectedEntry)) {
					return;
				}
			}
		}
		this.problems.add(name + ": " + jar.getFileName() + " has no " + expectedEntry);
	}

	void checkMetadata(String name, Element pom) {
		if (text(pom, "name") == null) {
			this.problems.add(name + ": the POM has no <name>");
		}
		require(name, pom, "description", null);
		require(name, pom, "url", "child.project.url.inherit.append.path");
		Element licenses = inherited(pom, "licenses");
		if (licenses == null || children(licenses, "license").isEmpty()) {
			this.problems.add(name + ": no <licenses>");
		}
		else {
			for (Element license : children(licenses, "license")) {
				if (text(license, "name") == null || text(license, "url") == null) {
					this.problems.add(name + ": a <license> without <name> and <url>");
				}
			}
		}
		Element developers = inherited(pom, "developers");
		if (developers == null || children(developers, "developer").isEmpty()) {
			this.problems.add(name + ": no <developers>");
		}
		else if (children(developers, "developer").stream().anyMatch((developer) -> text(developer, "name") == null)) {
			this.problems.add(name + ": a <developer> without <name>");
		}
		Element scm = inherited(pom, "scm");
		if (scm == null) {
			this.problems.add(name + ": no <scm>");
			return;
		}
		for (String element : List.of("connection", "developerConnection", "url")) {
			if (text(scm, element) == null) {
				this.problems.add(name + ": <scm> has no <" + element + ">");
			}
			else if (child(pom, "scm") == null
					&& !"false".equals(scm.getAttribute("child.scm." + element + ".inherit.append.path"))) {
				this.problems.add(name + ": inherits <scm><" + element + "> with its artifactId appended, an address "
						+ "that does not exist; set child.scm." + element
						+ ".inherit.append.path=\"false\" on the parent's <scm>");
			}
		}
	}

	/** Requires an element of the POM or of a parent, not appended to by Maven when the parent says so. */
	void require(String name, Element pom, String element, String appendAttribute) {
		if (text(pom, element) != null) {
			return;
		}
		Element parent = parentPom(pom);
		while (parent != null && text(parent, element) == null) {
			parent = parentPom(parent);
		}
		if (parent == null) {
			this.problems.add(name + ": no <" + element + ">, neither in the POM nor in a parent in the deployment");
		}
		else if (appendAttribute != null && !"false".equals(parent.getAttribute(appendAttribute))) {
			this.problems.add(name + ": inherits <" + element + "> with its artifactId appended, an address that "
					+ "does not exist; set " + appendAttribute + "=\"false\" on the parent's <project>");
		}
	}

	void checkOptionalDependencies(String name, Element pom) {
		Element dependencies = child(pom, "dependencies");
		for (Element dependency : (dependencies != null) ? children(dependencies, "dependency") : List.<Element>of()) {
			String coordinates = text(dependency, "groupId") + ":" + text(dependency, "artifactId");
			String scope = (text(dependency, "scope") != null) ? text(dependency, "scope") : "compile";
			boolean reachesApplications = scope.equals("compile") || scope.equals("runtime");
			if (reachesApplications && !"true".equals(text(dependency, "optional"))
					&& !STARTER_MANDATORY.contains(coordinates)) {
				this.problems.add(name + ": depends on " + coordinates
						+ " without <optional>true</optional>, so every application would get it");
			}
		}
	}

	Element inherited(Element pom, String element) {
		for (Element current = pom; current != null; current = parentPom(current)) {
			if (child(current, element) != null) {
				return child(current, element);
			}
		}
		return null;
	}

	Element parentPom(Element pom) {
		Element parent = child(pom, "parent");
		return (parent != null) ? this.poms.get(text(parent, "groupId") + ":" + text(parent, "artifactId")) : null;
	}

	static Element parse(Path pom) throws Exception {
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
		try (InputStream in = Files.newInputStream(pom)) {
			return factory.newDocumentBuilder().parse(in).getDocumentElement();
		}
	}

	static String text(Element element, String name) {
		Element child = child(element, name);
		String text = (child != null) ? child.getTextContent().trim() : null;
		return (text == null || text.isEmpty()) ? null : text;
	}

	static Element child(Element element, String name) {
		List<Element> children = (element != null) ? children(element, name) : List.of();
		return children.isEmpty() ? null : children.get(0);
	}

	static List<Element> children(Element element, String name) {
		List<Element> children = new ArrayList<>();
		for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element child && child.getTagName().equals(name)) {
				children.add(child);
			}
		}
		return children;
	}

}
