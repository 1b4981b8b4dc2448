#!/usr/bin/perl
# What dockerd makes of /etc/docker/daemon.json at start (moby daemon/config/config.go, MergeDaemonConfigurations
# and Validate; registry/config.go ValidateMirror), for the settings the worker renders. dockerd refuses to start
# on each of these, and so does this stand-in: JSON it cannot parse, a key that matches no option ("the following
# directives don't match any configuration option"), an mtu that is not a number, a mirror that is not an
# http(s) URL without path, query or credentials. Prints the effective settings, one `name=value` a line.
#   daemon-json.pl FILE
use strict;
use warnings;
use JSON::PP;

my $file = shift @ARGV;
sub refuse { print STDERR "unable to configure the Docker daemon with file $file: $_[0]\n"; exit 1 }

open my $fh, '<', $file or refuse("open $file: $!");
my $text = do { local $/; <$fh> };
my $config = eval { JSON::PP->new->decode($text) };
refuse("invalid JSON: $@") unless defined $config;
refuse("the configuration must be a JSON object") unless ref $config eq 'HASH';

# A subset of dockerd's options (`dockerd --help`), the ones a worker image or this project may set.
my %options = map { $_ => 1 } qw(mtu registry-mirrors insecure-registries bip default-address-pools dns
  data-root storage-driver log-driver log-opts live-restore max-concurrent-downloads features exec-opts
  userland-proxy);
my @unknown = grep { !$options{$_} } sort keys %$config;
refuse("the following directives don't match any configuration option: " . join(', ', @unknown)) if @unknown;

my $mtu = 1500;
if (exists $config->{mtu}) {
  my $value = $config->{mtu};
  # A JSON string "1460" fails Go's unmarshal into an int, as does 1460.5.
  refuse("json: cannot unmarshal into Go struct field Config.mtu of type int")
    if ref $value || JSON::PP->new->allow_nonref->encode($value) !~ /^-?\d+$/;
  refuse("invalid default MTU: $value") if $value < 68;
  $mtu = $value;
}
print "mtu=$mtu\n";
my $mirrors = $config->{'registry-mirrors'} // [];
refuse("registry-mirrors must be a list") unless ref $mirrors eq 'ARRAY';
for my $mirror (@$mirrors) {
  refuse("invalid mirror: $mirror") if ref $mirror || $mirror !~ m{^https?://[^/?#@\s]+/?$};
  (my $normalised = $mirror) =~ s{/?$}{/};
  print "registry-mirror=$normalised\n";
}
# A bool option (dockerd's default: true); a string "false" fails Go's unmarshal into a bool.
if (exists $config->{'userland-proxy'}) {
  my $value = $config->{'userland-proxy'};
  refuse("json: cannot unmarshal string into Go struct field Config.userland-proxy of type bool") unless JSON::PP::is_bool($value);
  print "userland-proxy=" . ($value ? "true" : "false") . "\n";
}
