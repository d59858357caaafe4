module github.com/pdc-mr/pdc

go 1.26.8

require (
	github.com/colinmarc/hdfs/v2 v2.4.0
	github.com/golang/snappy v0.0.1
	github.com/linkedin/goavro/v2 v2.15.0
	golang.org/x/net v0.62.0
	golang.org/x/text v0.43.0
)

require (
	github.com/hashicorp/go-uuid v1.0.3 // indirect
	github.com/jcmturner/aescts/v2 v2.0.0 // indirect
	github.com/jcmturner/dnsutils/v2 v2.0.0 // indirect
	github.com/jcmturner/gofork v1.7.6 // indirect
	github.com/jcmturner/goidentity/v6 v6.0.1 // indirect
	github.com/jcmturner/gokrb5/v8 v8.4.4 // indirect
	github.com/jcmturner/rpc/v2 v2.0.3 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	google.golang.org/protobuf v1.31.0 // indirect
)
