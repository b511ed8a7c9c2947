!! Two instances and the global tree are independent; type-bound start,
!! stop, read, write, serialize, deserialize; blank-padded names; handles;
!! finalization of instances that go out of scope.
program instances
  use timer_tree_type
  implicit none
  type(timer_tree) :: one, two
  integer :: ha, hb, hc, h2, k
  integer, allocatable :: tree(:)
  character(:), allocatable :: name(:)
  real, allocatable :: time(:)
  real :: cpu
  character(len=12) :: padded

  call one%start('A', ha)
  call one%start('B', hb)
  call two%start('A', h2)
  call start_timer('G')
  call one%stop('B')
  padded = 'C'
  call one%start(padded, hc)      ! blank-padded variable ...
  call one%stop('C')               ! ... and the literal name one timer
  call one%start('C')
  call one%stop(padded)
  call one%stop('A')
  call two%stop('A')
  call stop_timer('G')
  print '(a,3(1x,i0))', 'handles one:', ha, hb, hc
  print '(a,1x,i0)', 'handle two:', h2

  call one%read(ha, cpu)
  print '(a,l1)', 'read A >= 0: ', cpu >= 0.0
  call one%serialize(tree, name, time)
  print '(a,*(1x,i0))', 'one tree:', tree
  print '(a,i0)', 'one name length: ', len(name)
  print '(a,*(1x,a))', 'one names:', (trim(name(k)), k = 1, size(name))
  call two%serialize(tree, name, time)
  print '(a,*(1x,i0))', 'two tree:', tree
  call serialize_timer_tree(tree, name, time)
  print '(a,*(1x,i0))', 'global tree:', tree

  ! Fixed times through deserialize, written by the type-bound write.
  call two%deserialize([1, 2, 2, 1], [character(5) :: 'outer', 'inner'], [0.5, 0.25])
  call two%write(6, 3)
  call two%write(6, 0, 2)
  call two%read(2, cpu)
  print '(a,es12.5)', 'read inner:', cpu

  call scoped()
  call one%reset()
  call one%serialize(tree, name, time)
  print '(a,i0)', 'after reset: ', size(tree)
  call one%start('after')
  call one%stop('after')
  call one%serialize(tree, name, time)
  print '(a,*(1x,i0))', 'after reset and start:', tree

contains

  subroutine scoped()
    type(timer_tree) :: local  ! freed by the finalizer on return
    call local%start('local')
    call local%stop('local')
  end subroutine

end program
